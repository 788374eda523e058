// Where a PCI device sits, as sysfs shows it: /sys/bus/pci/devices/<bus id> and
// /sys/class/infiniband/<hca>/device are links into /sys/devices/pci<domain>:<bus>/<root port>/
// <switch upstream port>/<switch downstream port>/…/<bus id>, so the link's target is the chain of
// bridges from the host bridge down to the device (kernel Documentation/ABI/testing/sysfs-bus-pci;
// Documentation/PCI/sysfs-pci.rst). Two devices below one common bridge under the host bridge share
// a PCIe switch (or root port): NVML's PIX/PXB, what `nvidia-smi topo -m` prints for a compute
// rail and its GPU; devices that meet only at the host bridge or above are NVML's PHB/NODE/SYS.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace labcheck::node_check {

// The chain from the host bridge to the device itself, e.g. {"pci0000:00", "0000:00:01.1",
// "0000:09:00.0", "0000:0a:00.0", "0000:0c:00.0"}: the link at `link` resolved, relative to
// <sys_root>/devices. nullopt when the link does not resolve there (a fake tree of plain folders,
// a container's partial /sys).
std::optional<std::vector<std::string>> PciPath(const std::string& sys_root, const std::string& link);

// The device's NUMA node from <device>/numa_node; nullopt when unreadable or -1 (no affinity: a
// one-socket machine, most VMs).
std::optional<int> NumaNode(const std::string& device_dir);

// The common bridge below the host bridge of two chains (PciPath), the deepest one; "" when they
// meet only at the host bridge or not at all. The devices themselves never count as bridges.
std::string SharedBridge(const std::vector<std::string>& a, const std::vector<std::string>& b);

// {"pci_path": [...] or null, "numa_node": n or null} of the device behind `link`.
nlohmann::json LocationJson(const std::string& sys_root, const std::string& link);

// "0000:1b:00.1" → "0000:1b:00" (the card; its functions are its ports), and its function, 1.
std::string CardOfBusId(const std::string& bus_id);
int FunctionOfBusId(const std::string& bus_id);

}  // namespace labcheck::node_check

// The InfiniBand and RoCE ports a multi-node job's NCCL traffic crosses, read from sysfs before and
// after the check's own load (through the cluster mode's reader, cluster/nic_discovery.h): /sys/class/infiniband/<hca>/ports/<n>/{state ("4: ACTIVE"),
// phys_state ("5: LinkUp"), rate ("200 Gb/sec (4X HDR)"), link_layer, counters/link_downed,
// counters/symbol_error}, and for a RoCE port its netdev (gid_attrs/ndevs/0) with
// /sys/class/net/<if>/{operstate, speed} (kernel Documentation/ABI/stable/sysfs-class-infiniband,
// Documentation/ABI/testing/sysfs-class-net). Each port's HCA by its PCI bus id and place on the
// bus (<hca>/device, scan/pci_location.h), so that a finding names the card to replace and
// scan/network_roles.h can tell a compute rail from a storage card. SR-IOV virtual functions
// (<hca>/device/physfn) are left out: they are the physical port again, counted once.
// `sys_root` is "/sys" or LABCHECK_SYS_ROOT's fake tree.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace labcheck::node_check {

// [{device, port, state, phys_state, rate_gbit, link_layer, link_downed, symbol_error,
//   netdev?, netdev_operstate?, netdev_speed_mbit?, pci_bus_id, pci_path, numa_node}, …]; an empty
// array on a node without ports. pci_bus_id, pci_path and numa_node are null where sysfs does not
// tell (no device link).
nlohmann::json ReadNetworkPorts(const std::string& sys_root);

// `after` with each port's counter growth since `before` (link_downed_growth, symbol_error_growth),
// matched by device and port; a port absent before has no growth.
nlohmann::json WithCounterGrowth(const nlohmann::json& before, nlohmann::json after);

// NVIDIA (Mellanox, vendor 0x15b3) network functions on the PCI bus that have no RDMA device
// (<bus id>/infiniband/ empty or absent): a card the driver lost, or whose firmware did not come
// up, gone from /sys/class/infiniband but still on the bus, like a GPU off the bus (pci_bus_scan.h).
// InfiniBand controllers (class 0x0207xx) always; Ethernet controllers (0x0200xx) too, marked
// "link_layer": "Ethernet", since one without RDMA is a RoCE port only where RoCE is expected.
// [{pci_bus_id, link_layer, pci_path, numa_node}, …]; virtual functions and functions bound to a
// driver other than mlx5_core (vfio-pci, given to a VM) left out.
nlohmann::json ReadNetworkCardsWithoutRdma(const std::string& sys_root);

}  // namespace labcheck::node_check

// Fake /sys trees of real machines' network layouts, laid out as the kernel does: each PCI function
// a folder under devices/<host bridge>/<bridges…>/<bus id> linked from bus/pci/devices/<bus id>
// (kernel Documentation/ABI/testing/sysfs-bus-pci), each RDMA device a folder under its function's
// infiniband/ linked from class/infiniband/<hca>, with its `device` link back to the function
// (Documentation/ABI/stable/sysfs-class-infiniband). What each layout takes from its source, and
// what we wrote ourselves, is said at each one; no layout is a copy of a real machine's whole tree.
#pragma once
#include <filesystem>
#include <iterator>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fake_sysfs.h"

namespace labcheck::node_check::testing {

inline std::string Bus(int bus, int function = 0) { return fmt::format("0000:{:02x}:00.{}", bus, function); }

// A PCI function at the end of `chain` (the host bridge first, "pci0000:00", then the bridges, then
// the function's own bus id), with vendor, class and numa_node; linked from bus/pci/devices.
inline std::filesystem::path AddPciFunctionAt(const std::string& sys_root, const std::vector<std::string>& chain,
                                              const std::string& vendor, const std::string& pci_class, int numa) {
  std::filesystem::path dir = std::filesystem::path(sys_root) / "devices";
  for (const std::string& part : chain) dir /= part;
  WriteAttribute(dir / "vendor", vendor);
  WriteAttribute(dir / "class", pci_class);
  WriteAttribute(dir / "numa_node", std::to_string(numa));
  const std::filesystem::path link = std::filesystem::path(sys_root) / "bus/pci/devices" / chain.back();
  std::filesystem::create_directories(link.parent_path());
  std::filesystem::create_directory_symlink(dir, link);
  return dir;
}

inline void AddGpuAt(const std::string& sys_root, const std::vector<std::string>& chain, int numa) {
  AddPciFunctionAt(sys_root, chain, "0x10de", "0x030200", numa);
}

// A ConnectX function with its RDMA device `hca` (class 0x0207 InfiniBand, 0x0200 Ethernet); its
// ports are then written with AddIbPort (through the class/infiniband link, as the kernel has it).
inline void AddHcaAt(const std::string& sys_root, const std::vector<std::string>& chain, const std::string& hca, bool ethernet, int numa) {
  const std::filesystem::path function = AddPciFunctionAt(sys_root, chain, "0x15b3", ethernet ? "0x020000" : "0x020700", numa);
  const std::filesystem::path rdma = function / "infiniband" / hca;
  std::filesystem::create_directories(rdma);
  std::filesystem::create_directory_symlink(function, rdma / "device");
  const std::filesystem::path link = std::filesystem::path(sys_root) / "class/infiniband" / hca;
  std::filesystem::create_directories(link.parent_path());
  std::filesystem::create_directory_symlink(rdma, link);
}

// The driver lost the card: its RDMA device is gone, its PCI function still on the bus.
inline void LoseRdmaDevice(const std::string& sys_root, const std::string& hca) {
  const std::filesystem::path link = std::filesystem::path(sys_root) / "class/infiniband" / hca;
  std::filesystem::remove_all(std::filesystem::canonical(link));
  std::filesystem::remove(link);
}

// The card fell off the bus: neither its function nor its RDMA device is left.
inline void RemoveCard(const std::string& sys_root, const std::string& hca, const std::string& bus_id) {
  const std::filesystem::path function = std::filesystem::canonical(std::filesystem::path(sys_root) / "bus/pci/devices" / bus_id);
  std::filesystem::remove(std::filesystem::path(sys_root) / "class/infiniband" / hca);
  std::filesystem::remove(std::filesystem::path(sys_root) / "bus/pci/devices" / bus_id);
  std::filesystem::remove_all(function);
}

// A RoCE port's Ethernet interface (gid_attrs/ndevs/0 and class/net/<if>).
inline void AddRoceNetdev(const std::string& sys_root, const std::string& hca, const std::string& netdev, bool up) {
  const std::filesystem::path root(sys_root);
  WriteAttribute(root / "class/infiniband" / hca / "ports/1/gid_attrs/ndevs/0", netdev);
  WriteAttribute(root / "class/net" / netdev / "operstate", up ? "up" : "down");
  WriteAttribute(root / "class/net" / netdev / "speed", up ? "200000" : "-1");
}

inline FakeIbPort Port(const std::string& hca, const std::string& rate, bool ethernet = false) {
  FakeIbPort p;
  p.device = hca;
  p.rate = rate;
  p.link_layer = ethernet ? "Ethernet" : "InfiniBand";
  return p;
}

// A port whose cable was never plugged in: down since the driver loaded, link_downed 0.
inline FakeIbPort Uncabled(FakeIbPort p) {
  p.state = "1: DOWN";
  p.phys_state = p.link_layer == "Ethernet" ? "3: Disabled" : "2: Polling";
  p.rate = "10 Gb/sec (4X SDR)";
  return p;
}

// One compute rail: an HCA and its GPU behind the downstream ports of one PCIe switch. The bridges'
// bus numbers (`root`, root+1 the switch's upstream port, root+2 its downstream ports) are ours.
inline void AddRail(const std::string& sys_root, int root, int hca_bus, int gpu_bus, const std::string& hca, int numa) {
  const std::vector<std::string> above = {fmt::format("pci0000:{:02x}", root), fmt::format("0000:{:02x}:01.0", root),
                                          fmt::format("0000:{:02x}:00.0", root + 1)};
  std::vector<std::string> to_hca = above, to_gpu = above;
  to_hca.insert(to_hca.end(), {fmt::format("0000:{:02x}:00.0", root + 2), Bus(hca_bus)});
  to_gpu.insert(to_gpu.end(), {fmt::format("0000:{:02x}:01.0", root + 2), Bus(gpu_bus)});
  AddHcaAt(sys_root, to_hca, hca, false, numa);
  AddGpuAt(sys_root, to_gpu, numa);
}

// A dual-port card on a CPU root port of its own (no GPU below it): functions .0 and .1.
inline void AddSlotCard(const std::string& sys_root, int root, int bus, const std::string& hca0, const std::string& hca1, bool ethernet0,
                        bool ethernet1, int numa) {
  const std::vector<std::string> above = {fmt::format("pci0000:{:02x}", root), fmt::format("0000:{:02x}:01.0", root)};
  std::vector<std::string> f0 = above, f1 = above;
  f0.push_back(Bus(bus, 0));
  f1.push_back(Bus(bus, 1));
  AddHcaAt(sys_root, f0, hca0, ethernet0, numa);
  AddHcaAt(sys_root, f1, hca1, ethernet1, numa);
}

// DGX H100/H200. The compute rails are NVIDIA's: NVIDIA DGX H100/H200 User Guide, 1.2.3 "Network
// Modules", table 6 (mlx5_0 ibp24s0 GPU 0, mlx5_3 ibp64s0 GPU 1, mlx5_4 ibp79s0 GPU 2, mlx5_5
// ibp94s0 GPU 3 on network module/CPU 0; mlx5_6 ibp154s0 GPU 4, mlx5_9 ibp192s0 GPU 5, mlx5_10
// ibp206s0 GPU 6, mlx5_11 ibp220s0 GPU 7 on CPU 1): the netdev name ibp<bus>s0 gives each HCA's
// bus (24 = 0x18…). NDR 400. The two dual-port ConnectX-7 slot cards are the DGX BasePOD
// deployment guide's ("DGX H200/H100 System Network Ports"): port 2 (left) of slots 1 and 2 in
// Ethernet for in-band management and storage, port 1 (right) InfiniBand for storage where the
// site uses it. Their names mlx5_1/mlx5_2 and mlx5_7/mlx5_8 are the ones table 6 leaves; their bus
// ids (0x29, 0xaa), the GPUs' (each rail's bus + 1), the bridges and the storage rate (HDR 200:
// `ib_storage_rate`) are ours. `ib_storage_cabled` false: both port 1s left uncabled.
inline void AddDgxH100(const std::string& sys_root, bool ib_storage_cabled = true, const std::string& ib_storage_rate = "200 Gb/sec (4X HDR)") {
  const struct {
    const char* hca;
    int bus, numa;
  } rails[] = {{"mlx5_0", 0x18, 0}, {"mlx5_3", 0x40, 0}, {"mlx5_4", 0x4f, 0}, {"mlx5_5", 0x5e, 0},
               {"mlx5_6", 0x9a, 1}, {"mlx5_9", 0xc0, 1}, {"mlx5_10", 0xce, 1}, {"mlx5_11", 0xdc, 1}};
  for (const auto& r : rails) {
    AddRail(sys_root, r.bus - 4, r.bus, r.bus + 1, r.hca, r.numa);
    AddIbPort(sys_root, Port(r.hca, "400 Gb/sec (4X NDR)"));
  }
  AddSlotCard(sys_root, 0x27, 0x29, "mlx5_1", "mlx5_2", false, true, 0);
  AddSlotCard(sys_root, 0xa8, 0xaa, "mlx5_7", "mlx5_8", false, true, 1);
  for (const char* storage : {"mlx5_1", "mlx5_7"}) {
    const FakeIbPort p = Port(storage, ib_storage_rate);
    AddIbPort(sys_root, ib_storage_cabled ? p : Uncabled(p));
  }
  for (const auto& [inband, netdev] : {std::pair{"mlx5_2", "enp41s0f1np1"}, std::pair{"mlx5_8", "enp170s0f1np1"}}) {
    AddIbPort(sys_root, Port(inband, "100 Gb/sec (4X EDR)", true));
    AddRoceNetdev(sys_root, inband, netdev, true);
  }
}

// An H100 node of imbue's cluster, as its `ibdev2netdev` shows it (imbue-ai/cluster-health issue #4,
// 2024-08-06): eight ConnectX-7 InfiniBand rails mlx5_0 ibp26s0, mlx5_3 ibp60s0, mlx5_4 ibp77s0,
// mlx5_5 ibp94s0, mlx5_6 ibp156s0, mlx5_9 ibp188s0, mlx5_10 ibp204s0, mlx5_11 ibp220s0, and two
// dual-port ConnectX-6 Ethernet cards whose second port is down: mlx5_1 enp27s0f0np0 (Up), mlx5_2
// enp27s0f1np1 (Down), mlx5_7 enp157s0f0np0 (Up), mlx5_8 enp157s0f1np1 (Down). The rails' rate
// (NDR 400), their GPUs (bus + 2, or `gpus` in rail order: a simulated board's bus ids), the
// bridges and the NUMA nodes are ours.
inline void AddImbueH100(const std::string& sys_root, const std::vector<int>& gpus = {}) {
  const struct {
    const char* hca;
    int bus, numa;
  } rails[] = {{"mlx5_0", 0x1a, 0}, {"mlx5_3", 0x3c, 0}, {"mlx5_4", 0x4d, 0}, {"mlx5_5", 0x5e, 0},
               {"mlx5_6", 0x9c, 1}, {"mlx5_9", 0xbc, 1}, {"mlx5_10", 0xcc, 1}, {"mlx5_11", 0xdc, 1}};
  for (size_t k = 0; k < std::size(rails); ++k) {
    const auto& r = rails[k];
    AddRail(sys_root, r.bus - 4, r.bus, k < gpus.size() ? gpus[k] : r.bus + 2, r.hca, r.numa);
    AddIbPort(sys_root, Port(r.hca, "400 Gb/sec (4X NDR)"));
  }
  AddSlotCard(sys_root, 0x19, 0x1b, "mlx5_1", "mlx5_2", true, true, 0);
  AddSlotCard(sys_root, 0x9b, 0x9d, "mlx5_7", "mlx5_8", true, true, 1);
  for (const auto& [hca, netdev, up] : {std::tuple{"mlx5_1", "enp27s0f0np0", true}, std::tuple{"mlx5_2", "enp27s0f1np1", false},
                                        std::tuple{"mlx5_7", "enp157s0f0np0", true}, std::tuple{"mlx5_8", "enp157s0f1np1", false}}) {
    const FakeIbPort p = Port(hca, "200 Gb/sec (4X HDR)", true);
    AddIbPort(sys_root, up ? p : Uncabled(p));
    AddRoceNetdev(sys_root, hca, netdev, up);
  }
}

// DGX A100, from Meta's gcm manifest for it (facebookresearch/gcm gcm/tests/data/health_checks/
// DGX_A100.json, commit 1b7bde97): GPUs at 07, 0f, 47, 4e, 87, 90, b7, bd; InfiniBand HDR 200 HCAs
// ib0..ib7 = mlx5_0, 1, 2, 3, 6, 7, 8, 9 at 0c, 12, 4b, 54, 8d, 94, ba, cc; dual-port storage
// cards in slots PCIE_5 (61:00.0/.1) and PCIE_4 (e1:00.0/.1), of which the manifest expects only
// function 0 up (enp97s0f0, enp225s0f0, 200 GbE bond slaves): their second ports are uncabled.
// Two GPUs and two HCAs share one PCIe switch, as NCCL's topology dump of a DGX A100 shows GPU
// 0000:07:00.0 and mlx5_0 at 0000:0c:00.0 below one Broadcom switch (NVIDIA/nccl issue #1505).
// The storage cards' names (mlx5_4/5, mlx5_10/11: the ones the manifest leaves, in bus order), the
// bridges and the NUMA nodes are ours.
inline void AddDgxA100(const std::string& sys_root) {
  const struct {
    int gpu0, gpu1, hca0, hca1;
    const char *name0, *name1;
    int numa;
  } groups[] = {{0x07, 0x0f, 0x0c, 0x12, "mlx5_0", "mlx5_1", 0},
                {0x47, 0x4e, 0x4b, 0x54, "mlx5_2", "mlx5_3", 0},
                {0x87, 0x90, 0x8d, 0x94, "mlx5_6", "mlx5_7", 1},
                {0xb7, 0xbd, 0xba, 0xcc, "mlx5_8", "mlx5_9", 1}};
  for (const auto& g : groups) {
    const int root = g.gpu0 - 5;
    const std::vector<std::string> sw = {fmt::format("pci0000:{:02x}", root), fmt::format("0000:{:02x}:01.1", root),
                                         fmt::format("0000:{:02x}:00.0", root + 1)};
    int port = 0;
    auto below = [&](int bus) {
      std::vector<std::string> chain = sw;
      chain.insert(chain.end(), {fmt::format("0000:{:02x}:{:02x}.0", root + 2, port++), Bus(bus)});
      return chain;
    };
    AddGpuAt(sys_root, below(g.gpu0), g.numa);
    AddGpuAt(sys_root, below(g.gpu1), g.numa);
    AddHcaAt(sys_root, below(g.hca0), g.name0, false, g.numa);
    AddHcaAt(sys_root, below(g.hca1), g.name1, false, g.numa);
    for (const char* hca : {g.name0, g.name1}) AddIbPort(sys_root, Port(hca, "200 Gb/sec (4X HDR)"));
  }
  AddSlotCard(sys_root, 0x5f, 0x61, "mlx5_4", "mlx5_5", true, true, 0);
  AddSlotCard(sys_root, 0xdf, 0xe1, "mlx5_10", "mlx5_11", true, true, 1);
  for (const auto& [hca, netdev, up] : {std::tuple{"mlx5_4", "enp97s0f0", true}, std::tuple{"mlx5_5", "enp97s0f1", false},
                                        std::tuple{"mlx5_10", "enp225s0f0", true}, std::tuple{"mlx5_11", "enp225s0f1", false}}) {
    const FakeIbPort p = Port(hca, "200 Gb/sec (4X HDR)", true);
    AddIbPort(sys_root, up ? p : Uncabled(p));
    AddRoceNetdev(sys_root, hca, netdev, up);
  }
}

// A GH200 node as we wrote it (no public sysfs tree of one was found): the Grace Hopper superchip's
// GPU on a host bridge of its own (0009:01:00.0, NUMA node 0), behind NVLink-C2C rather than a
// PCIe switch, so no HCA shares a switch with it (NVSentinel finds every NIC-GPU cell SYS on Grace
// systems: docs/nic-health-monitor/link-state-detection.md, 4.2.4, NVIDIA/NVSentinel PR #752); an
// InfiniBand NDR rail mlx5_0 on NUMA node 0, and a dual-port Ethernet card mlx5_1/mlx5_2 for
// in-band management with its second port uncabled.
inline void AddGh200(const std::string& sys_root) {
  AddGpuAt(sys_root, {"pci0009:00", "0009:00:00.0", "0009:01:00.0"}, 0);
  AddHcaAt(sys_root, {"pci0000:00", "0000:00:00.0", "0000:01:00.0"}, "mlx5_0", false, 0);
  AddIbPort(sys_root, Port("mlx5_0", "400 Gb/sec (4X NDR)"));
  AddHcaAt(sys_root, {"pci0002:00", "0002:00:00.0", "0002:01:00.0"}, "mlx5_1", true, 0);
  AddHcaAt(sys_root, {"pci0002:00", "0002:00:00.0", "0002:01:00.1"}, "mlx5_2", true, 0);
  AddIbPort(sys_root, Port("mlx5_1", "200 Gb/sec (4X HDR)", true));
  AddRoceNetdev(sys_root, "mlx5_1", "enP2p1s0f0np0", true);
  AddIbPort(sys_root, Uncabled(Port("mlx5_2", "200 Gb/sec (4X HDR)", true)));
  AddRoceNetdev(sys_root, "mlx5_2", "enP2p1s0f1np1", false);
}

}  // namespace labcheck::node_check::testing

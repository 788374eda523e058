// A fake /sys for node-check's tests (LABCHECK_SYS_ROOT): PCI devices with their vendor and class
// attributes, as the kernel writes them ("0x10de", "0x030200"; Documentation/ABI/testing/sysfs-bus-pci).
#pragma once
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platform/files.h"

namespace labcheck::node_check::testing {

// A fresh private directory per test, for a fake /sys (removed afterwards).
class FakeSysTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakePrivateTempDir("lab_check_fake_sys"); }
  void TearDown() override {
    if (!dir_.empty()) RemoveTree(dir_);
  }
  std::string dir_;
};

inline void WriteAttribute(const std::filesystem::path& file, const std::string& value) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << value << "\n";
}

inline void AddPciDevice(const std::string& sys_root, const std::string& bus_id, const std::string& vendor,
                         const std::string& pci_class) {
  const std::filesystem::path dir = std::filesystem::path(sys_root) / "bus/pci/devices" / bus_id;
  WriteAttribute(dir / "vendor", vendor);
  WriteAttribute(dir / "class", pci_class);
}

// The HGX H100 board of tests/sim/machines/hgx-8xh100-nvswitch.json: eight GPUs (3D controllers)
// and four NVSwitches, beside a host bridge and an NVIDIA audio function that are neither.
inline void AddHgxBoard(const std::string& sys_root) {
  for (const char* id : {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0",
                         "0000:ba:00.0", "0000:db:00.0"})
    AddPciDevice(sys_root, id, "0x10de", "0x030200");
  for (const char* id : {"0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"})
    AddPciDevice(sys_root, id, "0x10de", "0x068000");
  AddPciDevice(sys_root, "0000:00:00.0", "0x8086", "0x060000");
  AddPciDevice(sys_root, "0000:18:00.1", "0x10de", "0x040300");
}

// One port under /sys/class/infiniband, its attributes as the kernel writes them
// ("4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)").
struct FakeIbPort {
  std::string device = "mlx5_0";
  int port = 1;
  std::string state = "4: ACTIVE";
  std::string phys_state = "5: LinkUp";
  std::string rate = "400 Gb/sec (4X NDR)";
  std::string link_layer = "InfiniBand";
  int link_downed = 0;
  int symbol_error = 0;
};

inline void AddIbPort(const std::string& sys_root, const FakeIbPort& p) {
  const std::filesystem::path dir =
      std::filesystem::path(sys_root) / "class/infiniband" / p.device / "ports" / std::to_string(p.port);
  WriteAttribute(dir / "state", p.state);
  WriteAttribute(dir / "phys_state", p.phys_state);
  WriteAttribute(dir / "rate", p.rate);
  WriteAttribute(dir / "link_layer", p.link_layer);
  WriteAttribute(dir / "counters/link_downed", std::to_string(p.link_downed));
  WriteAttribute(dir / "counters/symbol_error", std::to_string(p.symbol_error));
}

// Four NDR ports, mlx5_0..3: mlx5_1 down (cable out), mlx5_2 trained at 200 Gb/s (2X).
inline void AddIbPortsOneDownOneHalf(const std::string& sys_root) {
  for (int i = 0; i < 4; ++i) {
    FakeIbPort p;
    p.device = "mlx5_" + std::to_string(i);
    if (i == 1) p.state = "1: DOWN", p.phys_state = "3: Disabled", p.rate = "10 Gb/sec (4X SDR)";
    if (i == 2) p.rate = "200 Gb/sec (2X NDR)";
    AddIbPort(sys_root, p);
  }
}

}  // namespace labcheck::node_check::testing

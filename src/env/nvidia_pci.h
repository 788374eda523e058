// The NVIDIA devices on the PCI bus as sysfs lists them, whatever a driver made of them: a card
// whose kernel module is not loaded, that failed the driver's probe or fell off the bus is gone
// from NVML and CUDA but still has its /sys/bus/pci/devices/<bus id>/ entry (NVSentinel PR #833
// counts the same way). Vendor 0x10de; PCI class 0x0300xx (VGA) or 0x0302xx (3D controller) is a
// GPU, 0x0680xx (bridge, other) an NVSwitch (PCI Code and ID Assignment Specification, class codes
// 03h and 06h). The kernel driver bound to each is the basename of its `driver` link
// (Documentation/ABI/testing/sysfs-bus-pci): "nvidia", "nouveau", "vfio-pci", or none.
// `sys_root` is "/sys" or a fake tree (LABCHECK_SYS_ROOT in tests).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace labcheck::env {

struct NvidiaPciDevice {
  std::string bus_id;       // "0000:18:00.0", as sysfs names it
  bool gpu = false;         // a VGA or 3D controller
  bool nvswitch = false;    // a bridge (other)
  std::string driver;       // the bound kernel driver, "" when none is bound
};

struct NvidiaPciBus {
  std::vector<NvidiaPciDevice> devices;  // GPUs and NVSwitches, sorted by bus id
  std::optional<std::string> na;         // why the bus could not be read (then `devices` is empty)

  std::vector<std::string> Gpus() const;       // their bus ids
  std::vector<std::string> NvSwitches() const;
};

NvidiaPciBus ReadNvidiaPciBus(const std::string& sys_root);

}  // namespace labcheck::env

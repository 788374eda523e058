#include "env/nvidia_pci.h"

#include <cstdlib>
#include <filesystem>

#include "env/sysfs.h"

namespace labcheck::env {

namespace {

constexpr unsigned long kVendorNvidia = 0x10de;
// The class attribute is 0xCCSSPP (class, subclass, programming interface).
constexpr unsigned long kClassVga = 0x0300;
constexpr unsigned long kClass3d = 0x0302;
constexpr unsigned long kClassBridgeOther = 0x0680;

std::optional<unsigned long> HexAttribute(const std::string& path) {
  Result<std::string> line = ReadFirstLine(path);
  if (!line.ok()) return std::nullopt;
  const std::string text = Trim(*line);
  char* end = nullptr;
  const unsigned long value = std::strtoul(text.c_str(), &end, 16);
  if (end == text.c_str()) return std::nullopt;
  return value;
}

// "../../../bus/pci/drivers/nouveau" → "nouveau"; "" when no driver is bound (no link).
std::string BoundDriver(const std::string& device_dir) {
  std::error_code error;
  const std::filesystem::path target = std::filesystem::read_symlink(device_dir + "/driver", error);
  return error ? "" : target.filename().string();
}

}  // namespace

std::vector<std::string> NvidiaPciBus::Gpus() const {
  std::vector<std::string> ids;
  for (const NvidiaPciDevice& d : devices)
    if (d.gpu) ids.push_back(d.bus_id);
  return ids;
}

std::vector<std::string> NvidiaPciBus::NvSwitches() const {
  std::vector<std::string> ids;
  for (const NvidiaPciDevice& d : devices)
    if (d.nvswitch) ids.push_back(d.bus_id);
  return ids;
}

NvidiaPciBus ReadNvidiaPciBus(const std::string& sys_root) {
  NvidiaPciBus bus;
  const std::string root = sys_root + "/bus/pci/devices";
  const std::vector<std::string> names = ListDirectory(root);  // sorted
  if (names.empty()) {
    bus.na = "nothing under " + root;
    return bus;
  }
  for (const std::string& name : names) {
    const std::string dir = root + "/" + name;
    if (HexAttribute(dir + "/vendor") != kVendorNvidia) continue;
    const std::optional<unsigned long> cls = HexAttribute(dir + "/class");
    if (!cls) continue;
    const unsigned long base = *cls >> 8;
    NvidiaPciDevice device{name, base == kClassVga || base == kClass3d, base == kClassBridgeOther, ""};
    if (!device.gpu && !device.nvswitch) continue;  // the cards' audio and USB functions
    device.driver = BoundDriver(dir);
    bus.devices.push_back(std::move(device));
  }
  return bus;
}

}  // namespace labcheck::env

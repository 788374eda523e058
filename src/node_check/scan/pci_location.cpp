#include "node_check/scan/pci_location.h"

#include <cstdlib>
#include <filesystem>

#include "env/sysfs.h"

namespace labcheck::node_check {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<std::vector<std::string>> PciPath(const std::string& sys_root, const std::string& link) {
  std::error_code error;
  const fs::path base = fs::canonical(fs::path(sys_root) / "devices", error);
  if (error) return std::nullopt;
  const fs::path target = fs::canonical(link, error);
  if (error) return std::nullopt;
  const fs::path relative = target.lexically_relative(base);
  if (relative.empty() || relative.begin()->string() == "..") return std::nullopt;
  std::vector<std::string> chain;
  for (const fs::path& part : relative) chain.push_back(part.string());
  // A PCI device's chain starts at its host bridge ("pci0000:00"); anything else (a virtual
  // device under /sys/devices/virtual) has no PCI location.
  if (chain.size() < 2 || chain.front().rfind("pci", 0) != 0) return std::nullopt;
  return chain;
}

std::optional<int> NumaNode(const std::string& device_dir) {
  Result<std::string> line = env::ReadFirstLine(device_dir + "/numa_node");
  if (!line.ok()) return std::nullopt;
  const std::string text = env::Trim(*line);
  char* end = nullptr;
  const long node = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || node < 0) return std::nullopt;
  return static_cast<int>(node);
}

std::string SharedBridge(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  // Index 0 is the host bridge; the last element of each chain is the device itself.
  std::string shared;
  if (a.empty() || b.empty() || a.front() != b.front()) return shared;
  for (size_t i = 1; i + 1 < a.size() && i + 1 < b.size(); ++i) {
    if (a[i] != b[i]) break;
    shared = a[i];
  }
  return shared;
}

json LocationJson(const std::string& sys_root, const std::string& link) {
  const std::optional<std::vector<std::string>> path = PciPath(sys_root, link);
  const std::optional<int> numa = NumaNode(link);
  return {{"pci_path", path ? json(*path) : json(nullptr)}, {"numa_node", numa ? json(*numa) : json(nullptr)}};
}

std::string CardOfBusId(const std::string& bus_id) {
  const size_t dot = bus_id.rfind('.');
  return dot == std::string::npos ? bus_id : bus_id.substr(0, dot);
}

int FunctionOfBusId(const std::string& bus_id) {
  const size_t dot = bus_id.rfind('.');
  return dot == std::string::npos ? 0 : std::atoi(bus_id.c_str() + dot + 1);
}

}  // namespace labcheck::node_check

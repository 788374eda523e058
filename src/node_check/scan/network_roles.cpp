#include "node_check/scan/network_roles.h"

#include <algorithm>
#include <optional>
#include <set>

#include "node_check/scan/pci_bus_scan.h"
#include "node_check/scan/pci_location.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

std::optional<std::vector<std::string>> PathOf(const json& item) {
  const json& path = item.value("pci_path", json(nullptr));
  if (!path.is_array()) return std::nullopt;
  return path.get<std::vector<std::string>>();
}

// The first GPU below a bridge the item shares with it, and that bridge.
std::optional<std::pair<std::string, std::string>> GpuBeside(const json& item, const json& gpus) {
  const std::optional<std::vector<std::string>> path = PathOf(item);
  if (!path) return std::nullopt;
  for (const json& gpu : gpus) {
    const std::optional<std::vector<std::string>> gpu_path = PathOf(gpu);
    if (!gpu_path) continue;
    const std::string bridge = SharedBridge(*path, *gpu_path);
    if (!bridge.empty()) return std::make_pair(gpu.value("pci_bus_id", std::string()), bridge);
  }
  return std::nullopt;
}

bool AnyGpuLocated(const json& gpus) {
  return std::any_of(gpus.begin(), gpus.end(), [](const json& g) { return PathOf(g).has_value(); });
}

// Rule 3: no HCA shares a switch with a GPU.
void ByNuma(json& item, const json& gpus) {
  std::set<int> gpu_nodes;
  for (const json& g : gpus)
    if (g.value("numa_node", json(nullptr)).is_number()) gpu_nodes.insert(g["numa_node"].get<int>());
  const json& numa = item.value("numa_node", json(nullptr));
  const bool near_gpu = gpu_nodes.empty() || !numa.is_number() || gpu_nodes.count(numa.get<int>()) > 0;
  const bool infiniband = item.value("link_layer", std::string("InfiniBand")) != "Ethernet";
  item["role"] = near_gpu && infiniband ? "compute" : "other";
  item["role_basis"] = "numa";
}

}  // namespace

json ReadGpuLocations(const std::string& sys_root) {
  json gpus = json::array();
  const json bus = ScanPciBus(sys_root);
  for (const json& id : bus.value("gpus", json::array())) {
    json gpu = LocationJson(sys_root, sys_root + "/bus/pci/devices/" + id.get<std::string>());
    gpu["pci_bus_id"] = id;
    gpus.push_back(gpu);
  }
  return gpus;
}

json WithNetworkRoles(json items, const json& gpus, const std::vector<std::string>& ib_devices, const json& node_hcas) {
  if (!items.is_array()) return items;
  const bool located = AnyGpuLocated(gpus);
  const json& all = node_hcas.is_array() ? node_hcas : items;
  const bool some_share = std::any_of(all.begin(), all.end(), [&](const json& i) { return GpuBeside(i, gpus).has_value(); });
  for (json& item : items) {
    if (!ib_devices.empty() && item.contains("device")) {
      const bool named = std::find(ib_devices.begin(), ib_devices.end(), item.value("device", std::string())) != ib_devices.end();
      item["role"] = named ? "compute" : "other";
      item["role_basis"] = "ib_devices";
    } else if (const auto beside = GpuBeside(item, gpus)) {
      item["role"] = "compute";
      item["role_basis"] = "pcie_switch";
      item["beside_gpu"] = beside->first;
      item["shared_bridge"] = beside->second;
    } else if (!located || !PathOf(item)) {
      item["role"] = "compute";
      item["role_basis"] = "unknown";
    } else if (some_share) {
      item["role"] = "other";
      item["role_basis"] = "pcie_switch";
    } else {
      ByNuma(item, gpus);
    }
  }
  return items;
}

}  // namespace labcheck::node_check

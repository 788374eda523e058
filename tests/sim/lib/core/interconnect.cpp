#include "core/interconnect.h"

#include <cstdio>

#include "core/profile.h"

namespace nvsim {

namespace {

// A number for every pair, or a matrix by profile index; `fallback` for a cell the matrix lacks.
double Cell(const json* node, int a, int b, double fallback) {
  if (node == nullptr) return fallback;
  if (node->is_number()) return node->get<double>();
  if (node->is_array() && a < static_cast<int>(node->size()) && (*node)[a].is_array() &&
      b < static_cast<int>((*node)[a].size()) && (*node)[a][b].is_number())
    return (*node)[a][b].get<double>();
  return fallback;
}

}  // namespace

bool PeerAccess(int a, int b) {
  if (a == b) return false;
  const json* access = Profile().At("p2p/access");
  if (access == nullptr) return false;
  if (access->is_string()) return access->get<std::string>() == "all";
  return Cell(access, a, b, 0) != 0;
}

double PeerCopyGbps(int a, int b, bool with_access) {
  const Machine& m = Profile();
  const char* key = with_access ? "p2p/with_access_gbps" : "p2p/without_access_gbps";
  return Cell(m.At(key), a, b, m.Number(key));  // a matrix is not a number: Number() reads the default
}

bool PeerCopyLands(bool with_access) {
  const std::string lost = Profile().String("p2p/copies_lost");
  return !(lost == "always" || (lost == "with_access" && with_access));
}

int TopologyLevel(int a, int b) {
  const json* level = Profile().At("topology/level");
  std::string name = Profile().String("topology/level");  // the default where the profile gives a matrix
  if (level != nullptr && level->is_array() && a < static_cast<int>(level->size()) && (*level)[a].is_array() &&
      b < static_cast<int>((*level)[a].size()) && (*level)[a][b].is_string())
    name = (*level)[a][b].get<std::string>();
  if (name == "PIX") return 10;
  if (name == "PXB") return 20;
  if (name == "PHB") return 30;
  if (name == "NODE") return 40;
  if (name == "SYS") return 50;
  return 0;
}

std::vector<NvLink> NvLinks(int device) {
  std::vector<NvLink> links;
  const Machine& m = Profile();
  const json* list = m.gpus[device].At("nvlink");
  if (list == nullptr || !list->is_array()) return links;
  for (const json& entry : *list) {
    NvLink l;
    l.active = entry.at("active").get<bool>();  // each entry has the defaults' keys (nvlink?)
    l.remote = entry.at("to").get<std::string>();
    if (l.remote == "gpu") {
      l.peer = entry.at("peer").get<int>();
      if (l.peer >= 0 && l.peer < static_cast<int>(m.gpus.size())) l.remote_bus = m.gpus[l.peer].bus_id;
    } else {
      char bus[32];  // NVSwitches sit on their own PCI buses on HGX boards
      std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0xc0 + entry.at("switch").get<int>());
      l.remote_bus = bus;
    }
    const int repeat = entry.at("count").get<int>();
    for (int i = 0; i < repeat; ++i) links.push_back(l);
  }
  return links;
}

}  // namespace nvsim

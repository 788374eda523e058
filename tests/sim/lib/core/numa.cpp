#include "core/numa.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace nvsim {

std::vector<std::vector<int>> NumaNodes() {
  std::vector<std::vector<int>> nodes;
  if (const json* listed = Profile().At("numa/nodes"); listed != nullptr && listed->is_array())
    for (const json& node : *listed) nodes.push_back(node.get<std::vector<int>>());
  if (nodes.empty()) {
    nodes.emplace_back();
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (int cpu = 0; cpu < std::max(1L, online); ++cpu) nodes.back().push_back(cpu);
  }
  return nodes;
}

int GpuNumaNode(const Gpu& g) { return static_cast<int>(g.Number("numa_node")); }

int ThreadNumaNode() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return 0;
  const std::vector<std::vector<int>> nodes = NumaNodes();
  for (size_t n = 0; n < nodes.size(); ++n) {
    bool inside = true;
    for (int cpu = 0; cpu < CPU_SETSIZE && inside; ++cpu)
      if (CPU_ISSET(cpu, &set) && std::find(nodes[n].begin(), nodes[n].end(), cpu) == nodes[n].end()) inside = false;
    if (inside) return static_cast<int>(n);
  }
  return 0;
}

double NumaFactor(const Gpu& g, int buffer_node) {
  if (Profile().At("numa/nodes") == nullptr || buffer_node == GpuNumaNode(g)) return 1.0;
  return Profile().Number("numa/far_node_factor");
}

}  // namespace nvsim

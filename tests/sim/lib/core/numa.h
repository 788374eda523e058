// The simulated machine's NUMA nodes, for host memory and host↔device copies on two-socket boards.
// Profile: top-level "numa/nodes", a list of CPU lists of the machine the tests run on (the CI
// machine has two cores: [[0], [1]] makes two one-core "sockets"); per GPU "numa_node" [0]; a
// pinned host buffer on another node than its GPU's is copied at "numa/far_node_factor" [0.6] of
// the profile's rate. Without "numa/nodes" there is one node holding every CPU and no penalty.
#pragma once
#include <vector>

#include "core/profile.h"

namespace nvsim {

// The nodes' CPU lists; one node with every online CPU when the profile has none.
std::vector<std::vector<int>> NumaNodes();
int GpuNumaNode(const Gpu& g);
// The node of the calling thread: the one node holding every CPU it may run on. A thread allowed
// on CPUs of several nodes counts as node 0: Linux would place its pages wherever it happened to
// run; the sim picks one, so that tests are deterministic.
int ThreadNumaNode();
// The rate factor for copying between `g` and a host buffer on `buffer_node`: 1 on the GPU's own
// node, "numa/far_node_factor" elsewhere.
double NumaFactor(const Gpu& g, int buffer_node);

}  // namespace nvsim

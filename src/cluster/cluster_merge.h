// Rank 0's view of the whole run: every rank's block (or a hole where a rank never reported)
// merged into one check result, `cluster.allreduce`: the per-node table, the cluster's sweep,
// each node alone against the others, the network against what its NICs allow, NCCL's transport
// per node, and the ranks that died, hung or computed a wrong sum, by name. Pure: tests feed it
// hand-written blocks. docs/multi-node.md says how each figure is counted.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check_result.h"

namespace labcheck::cluster {

inline constexpr const char* kClusterCheckId = "cluster.allreduce";
// A node alone below this share of the nodes' median is "out of line"; the cluster's busbw across
// nodes below this share of what the slowest node's NICs allow earns a WARN.
inline constexpr double kOutOfLineShare = 0.7;
inline constexpr double kNetworkShare = 0.5;

struct MergeInput {
  int world_size = 1;
  std::vector<nlohmann::json> blocks;  // index = rank; null where that rank's block never arrived
  std::string gather_error;            // why the gather did not complete (then only rank 0's block is there)
};

CheckResult MergeClusterRun(const MergeInput& input);

}  // namespace labcheck::cluster

// `node-check --drain` with Slurm: reads the nodes (`scontrol -o show nodes`) and the node's state
// file, decides (drain_policy.h), runs `scontrol update` to drain or resume, says on stderr what it
// ran or why it ran nothing, and records the decision in the report's "drain" object.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "node_check/drain_policy.h"
#include "node_check/node_verdict.h"

namespace labcheck::node_check {

struct DrainSettings {
  std::string node;
  std::string scontrol;  // --scontrol, or "" to look for it
  std::string state_dir = kDefaultStateDir;
  bool whole_node = true;  // false: a job's GPUs only were judged, so nothing is resumed
  DrainPolicy policy;
};

struct DrainResult {
  bool failed = false;        // a drain or resume that was due could not be done, or the cap held it (exit 4)
  bool state_written = true;  // false: the state file could not be read or written (exit 3)
};

// The Slurm calls of one run share kSlurmBudgetS (node_check_command.h's health-check budget):
// reading the nodes takes at most kShowNodesTimeoutS of it, the update the rest.
inline constexpr double kSlurmBudgetS = 10, kShowNodesTimeoutS = 4;

// Nothing is done for a verdict that cannot tell (no driver).
DrainResult ApplyDrainPolicy(const NodeVerdict& verdict, const DrainSettings& settings, const EnvLookup& env, Lang lang,
                             nlohmann::json& report);

}  // namespace labcheck::node_check

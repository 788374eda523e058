// `node-check --drain` with Slurm: reads the nodes (`scontrol -o show nodes`) and the node's state
// file, decides (drain_policy.h), runs `scontrol update` to drain or resume, says on stderr what it
// ran or why it ran nothing, and records the decision in the report's "drain" object.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "node_check/slurm/drain_policy.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {

// The Slurm calls of one run share a budget of at least kSlurmBudgetS (node_check_command.h's
// health-check budget, for a GPU check that ran to its deadline): reading the nodes takes at most the
// larger of kShowNodesTimeoutS and 40 % of it, the update the rest.
inline constexpr double kSlurmBudgetS = 10, kShowNodesTimeoutS = 4;
// slurmd kills HealthCheckProgram after 60 s; kAfterSlurmS of it stays for the files and the line
// after the Slurm calls.
inline constexpr double kSlurmdHealthKillS = 60, kAfterSlurmS = 5;

// Under slurmd's health check the Slurm calls may use what the GPU check left of slurmd's 60 s,
// never less than kSlurmBudgetS: a busy slurmctld answers scontrol in seconds (its MessageTimeout
// defaults to 10 s), and a drain cut off at a fixed few seconds leaves a sick node in service. A CI
// machine under load showed it: `scontrol show nodes` past 4 s, the update past 6 s.
double HealthCheckSlurmBudgetS(double elapsed_s);
double ShowNodesTimeoutS(double budget_s);

struct DrainSettings {
  std::string node;
  std::string scontrol;  // --scontrol, or "" to look for it
  std::string state_dir = kDefaultStateDir;
  bool whole_node = true;  // false: a job's GPUs only were judged, so nothing is resumed
  DrainPolicy policy;
  double slurm_budget_s = kSlurmBudgetS;  // all Slurm calls of the run together
};

struct DrainResult {
  bool failed = false;        // a drain or resume that was due could not be done, or the cap held it (exit 4)
  bool state_written = true;  // false: the state file could not be read or written (exit 3)
};

// Nothing is done for a verdict that cannot tell (no driver).
DrainResult ApplyDrainPolicy(const NodeVerdict& verdict, const DrainSettings& settings, const EnvLookup& env, Lang lang,
                             nlohmann::json& report);

}  // namespace labcheck::node_check

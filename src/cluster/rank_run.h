// One rank's part of `lab_check allreduce` under a launcher. This process never loads NVIDIA's
// libraries: it runs the sweep in a child (`gpu-allreduce-rank`) with a timeout, builds its block
// of the report from the child's JSON (or, when the child died or hung, from the progress file it
// left), NCCL's log and its own facts, and then hands that block to rank 0 through a second child
// (`gpu-cluster-gather`) on a fresh communicator. So a rank whose sweep crashed still reports, and
// the report names it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/launcher_env.h"
#include "cluster/rank_facts.h"
#include "cluster/rendezvous.h"
#include "runner/cancel.h"
#include "runner/child_job.h"

namespace labcheck::cluster {

struct RankRunOptions {
  std::string self_exe;
  bool quick = false;
  double sweep_timeout_s = 600;  // the sweep child's budget; a rank still running then counts as hung
  double stall_s = 30;           // one collective making no progress this long: the child gives up on it
  std::optional<size_t> max_bytes;
  std::string work_dir;          // private temp dir for the progress file, the NCCL log, the blocks
};

struct RankRunResult {
  nlohmann::json mine;                     // this rank's block
  std::optional<nlohmann::json> gathered;  // rank 0, when the gather completed: all blocks in rank order
  std::string gather_error;                // why it did not
};

RankRunResult RunRank(const LaunchEnv& launch, const RankFacts& facts, const Rendezvous& rendezvous,
                      const RankRunOptions& options, const CancelToken& cancel);

// The block from the sweep child's outcome, its progress file's contents (empty when none) and
// NCCL's log text. Pure, so tests feed it crashed and hung children.
nlohmann::json RankBlock(const RankFacts& facts, const ChildJobOutcome& sweep, const std::string& progress,
                         const std::string& nccl_log, double sweep_timeout_s);

}  // namespace labcheck::cluster

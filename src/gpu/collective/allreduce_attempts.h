// The all-reduce's watchdog and retry, as the seed's troubleshooting table asks: run the sweep in
// a child with NCCL_DEBUG=INFO logging to a file; on a hang (the child's own stall detector or the
// parent's timeout), a crash, an NCCL error or a wrong sum, run it once more with
// NCCL_P2P_DISABLE=1, and keep both outcomes. When the first works, a full check may still run
// the sweep once with NCCL_P2P_DISABLE=1 to compare: on some boards the P2P path is slower than
// NCCL's host-memory (SHM) path, and the only way to know is to measure both. How the child is
// started is a parameter, so tests drive it with a child that really hangs.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/collective/nccl_log.h"
#include "runner/child_job.h"

namespace labcheck::gpu {

using EnvList = std::vector<std::pair<std::string, std::string>>;
// Starts the all-reduce child with these extra environment variables and waits for it.
using AllReduceLauncher = std::function<ChildJobOutcome(const EnvList& env)>;

struct AllReduceAttempt {
  bool p2p_disabled = false;
  bool hung = false;          // stalled inside (child says) or killed at the timeout
  bool crashed = false;       // ended by a signal, or no result at all
  std::string nccl_error;
  bool wrong_sum = false;
  std::string process_error;  // the child's own error or stderr tail
  nlohmann::json payload = nlohmann::json::object();  // the child's JSON when it produced one
  NcclLogSummary log;

  bool ok() const { return !hung && !crashed && nccl_error.empty() && !wrong_sum && process_error.empty(); }
  nlohmann::json ToJson() const;  // docs/report-schema.md: interconnect.allreduce fields
};

struct AllReduceRun {
  AllReduceAttempt first;
  std::optional<AllReduceAttempt> retry;       // only when the first failed
  std::optional<AllReduceAttempt> comparison;  // NCCL_P2P_DISABLE=1 after a first that worked, if asked
  // The child said "skip" (no NCCL, no GPU): nothing to retry.
  std::optional<nlohmann::json> skipped;
};

// `log_dir` receives nccl-first.log, nccl-retry.log and nccl-compare.log (NCCL_DEBUG_FILE).
// `compare` (empty: none) starts the comparison sweep after a first attempt that worked on more
// than one rank; it may sweep fewer sizes than `launch`.
AllReduceRun RunAllReduceWithRetry(const AllReduceLauncher& launch, const std::string& log_dir,
                                   const AllReduceLauncher& compare = {});

}  // namespace labcheck::gpu

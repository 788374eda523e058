// Runs the `ddp` or `fsdp2` smoke test: smoke_dist_launch.py starts the ranks through
// torch.distributed.run, with its own watchdog that names the stuck ranks; this process's timeout,
// a little longer, is the last resort (the whole process group goes, and the ranks die with their
// parent).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "probes/unresponsive.h"
#include "runner/cancel.h"
#include "smoke/test_outcome.h"

namespace labcheck::smoke {

struct DistRunRequest {
  std::string python;
  std::string test;       // "ddp" or "fsdp2"
  double budget_s = 180;  // already scaled by --timeout-scale
  std::vector<std::pair<std::string, std::string>> set_env;
  double startup_budget_s = 90;  // the launcher's `import torch` (the handshake), already scaled
  // Across nodes (docs/multi-node.md): "--nnodes", "2", "--rdzv-endpoint", "node01:29400", …
  std::vector<std::string> launch_args;
};

// The launcher's watchdog for a budget: what remains after it must cover killing the ranks and
// PyTorch's launcher noticing and reporting.
double WatchdogFor(double budget_s);

// `unresponsive`, when given, is set when the launcher missed its handshake.
TestOutcome RunDistributedTest(const DistRunRequest& request, const CancelToken& cancel,
                               std::optional<probes::Unresponsive>* unresponsive = nullptr);

}  // namespace labcheck::smoke

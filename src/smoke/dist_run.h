// Runs the `ddp` or `fsdp2` smoke test: smoke_dist_launch.py starts the ranks through
// torch.distributed.run, with its own watchdog that names the stuck ranks; this process's timeout,
// a little longer, is the last resort (the whole process group goes, and the ranks die with their
// parent).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "probes/interpreter.h"
#include "runner/cancel.h"
#include "smoke/test_outcome.h"

namespace labcheck::smoke {

struct DistRunRequest {
  std::string test;       // "ddp" or "fsdp2"
  double budget_s = 180;  // already scaled by --timeout-scale
  std::vector<std::pair<std::string, std::string>> set_env;
  double startup_budget_s = probes::kTorchImportBudgetS;  // the launcher's `import torch` (the handshake), already scaled
  // Across nodes (docs/multi-node.md): "--nnodes", "2", "--rdzv-endpoint", "node01:29400", …
  std::vector<std::string> launch_args;
};

// The launcher's watchdog for a budget: what remains after it must cover killing the ranks and
// PyTorch's launcher noticing and reporting.
double WatchdogFor(double budget_s);

// Through `python`, the run's interpreter: when it is known not to answer, nothing is started and
// the outcome is lost with its reason; a launcher that misses its handshake makes it known so.
TestOutcome RunDistributedTest(const DistRunRequest& request, probes::Interpreter& python, const CancelToken& cancel);

}  // namespace labcheck::smoke

#include "smoke/dist_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "runner/child_failure.h"

namespace labcheck::smoke {

double WatchdogFor(double budget_s) { return std::max(budget_s / 2, budget_s - 15); }

TestOutcome RunDistributedTest(const DistRunRequest& request, probes::Interpreter& python, const CancelToken& cancel) {
  probes::ProbeSpec spec;
  spec.probe = "smoke_dist_launch.py";
  spec.args = {"--test", request.test, "--watchdog-s", fmt::format("{:g}", WatchdogFor(request.budget_s))};
  spec.args.insert(spec.args.end(), request.launch_args.begin(), request.launch_args.end());
  spec.timeout_s = request.budget_s;
  spec.startup_budget_s = std::min(request.startup_budget_s, request.budget_s);
  spec.set_env = request.set_env;
  probes::Asked asked = python.Run(spec, probes::Needs::Torch, cancel);
  if (asked.unresponsive) return TestOutcome::Lost(asked.unresponsive->Reason(), asked.run.process.Tail(30));
  probes::ProbeRun& run = asked.run;
  if (run.result.ok()) return TestOutcome::Of(std::move(run.result).value());
  const ChildOutcome& process = run.process;
  if (!process.started || process.timed_out || process.cancelled || process.term_signal != 0) {
    return TestOutcome::Lost(DescribeChildFailure(process), process.Tail(30), process.cancelled);
  }
  return TestOutcome::Lost(T("проба не вернула результат", "the probe returned no result"),
                           run.result.status().message());
}

}  // namespace labcheck::smoke

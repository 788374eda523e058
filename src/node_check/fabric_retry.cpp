#include "node_check/fabric_retry.h"

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "gpu/job_envelope.h"

namespace labcheck::node_check {

bool FabricNotReady(const ChildJobOutcome& outcome) {
  const std::optional<CheckResult> problem = gpu::EnvelopeProblem("node.check", outcome);
  // The name cuda.h gives 802, as the child describes cuInit's result (cuda_driver.h, DescribeResult).
  return problem && problem->error.find("CUDA_ERROR_SYSTEM_NOT_READY") != std::string::npos;
}

ChildJobOutcome RunWhileFabricStarts(const std::function<ChildJobOutcome()>& run, const CancelToken& cancel,
                                     const EnvLookup& env, int& retries) {
  int step_ms = kFabricRetryStepMs;
  if (const std::optional<std::string> test = env("LABCHECK_TEST_FABRIC_RETRY_MS")) step_ms = std::atoi(test->c_str());
  retries = 0;
  ChildJobOutcome outcome = run();
  while (retries < kFabricRetries && FabricNotReady(outcome) && !cancel.cancelled()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(step_ms));
    ++retries;
    outcome = run();
  }
  return outcome;
}

}  // namespace labcheck::node_check

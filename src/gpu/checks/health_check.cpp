// gpu.health: the child job's NVML facts judged line by line (health/health_verdicts.h).
#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/health/health_verdicts.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"

namespace labcheck::gpu {

CheckResult RunHealthCheck(CheckContext& context) {
  constexpr const char* kId = "gpu.health";
  if (auto skip = SkipWithoutGpus(context, kId)) return *skip;
  context.Progress(-1, "NVML: ECC, remapping, XID, PCIe");
  ChildJobOutcome outcome = RunGpuJob(context, kHealthJob);
  if (std::optional<CheckResult> problem = EnvelopeProblem(kId, outcome)) return *problem;
  CheckResult result = health::JudgeHealth(outcome.result.value());
  result.data["method"] = outcome.result.value().value("method", "");
  return result;
}

}  // namespace labcheck::gpu

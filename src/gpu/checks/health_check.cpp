// gpu.health: the child job's NVML facts judged line by line (health/health_verdicts.h).
#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/health/health_verdicts.h"
#include "gpu/jobs/gpu_jobs.h"

namespace labcheck::gpu {

namespace {

CheckResult RunHealthCheck(CheckContext& context) {
  GpuJobReply reply = RunGpuJobFor(context, kHealthCheck, "NVML: ECC, remapping, XID, PCIe");
  if (reply.ending) return *reply.ending;
  CheckResult result = health::JudgeHealth(reply.payload);
  result.data["method"] = reply.payload.value("method", "");
  return result;
}

}  // namespace

// Right after the inventory (gpu_checks.cpp): "clock events at idle" and the idle temperature
// mean something only before the benchmarks heat the cards.
const GpuCheckSpec kHealthCheck = {
    .id = "gpu.health",
    .section = "gpu",
    .title = T("Состояние GPU", "GPU health"),
    .quick = QuickMode::Shortened,
    .budget_s = 60,
    .job = kHealthJob,
    .job_fn = HealthJob,
    .run = RunHealthCheck,
    .reads = {&kInventoryCheck},
};

}  // namespace labcheck::gpu

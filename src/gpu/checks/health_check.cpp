// gpu.health: the child job's NVML facts judged line by line (health/health_verdicts.h).
#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/health/health_verdicts.h"
#include "gpu/jobs/gpu_jobs.h"

namespace labcheck::gpu {

CheckResult RunHealthCheck(CheckContext& context) {
  GpuJobReply reply = RunGpuJobFor(context, "gpu.health", kHealthJob, "NVML: ECC, remapping, XID, PCIe");
  if (reply.ending) return *reply.ending;
  CheckResult result = health::JudgeHealth(reply.payload);
  result.data["method"] = reply.payload.value("method", "");
  return result;
}

}  // namespace labcheck::gpu

#include "gpu/live_gpus.h"

#include "gpu/gpu_checks.h"
#include "gpu/jobs/gpu_jobs.h"
#include "runner/child_job.h"

namespace labcheck {

Result<std::vector<LiveGpuBrief>> ReadLiveGpus(const std::string& self_exe, double timeout_s) {
  ChildJobOutcome outcome = RunChildJob(self_exe, gpu::kInventoryJob, {}, timeout_s, CancelToken::Never());
  if (!outcome.result.ok()) return outcome.result.status();
  const nlohmann::json& j = outcome.result.value();
  const std::string verdict = j.value("outcome", std::string("fail"));
  if (verdict == "skip") return std::vector<LiveGpuBrief>{};
  if (verdict != "ok") {
    std::string reason = j.contains("reason") ? j["reason"].value("en", std::string()) : "";
    return Status::Error("GPU inventory failed: " + reason + " " + j.value("error", std::string()));
  }
  std::vector<LiveGpuBrief> gpus;
  for (const nlohmann::json& gpu : j.value("gpus", nlohmann::json::array()))
    gpus.push_back({gpu.value("name", std::string()), gpu.value("memory_total_gib", 0.0)});
  return gpus;
}

}  // namespace labcheck

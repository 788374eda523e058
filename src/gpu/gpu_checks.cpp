#include "gpu/gpu_checks.h"

#include <mutex>

#include "gpu/checks/gpu_check_list.h"
#include "gpu/jobs/gpu_jobs.h"
#include "runner/child_job.h"

namespace labcheck {

namespace {

// Report order. Budgets are timeouts for the child, not expected durations: generous for 8 GPUs,
// and scaled by --timeout-scale. The full GPU section aims at under 60 s per GPU
// (docs/gpu-checks.md). The inventory comes first, since every other check reads it; the health
// check right after it, before the benchmarks heat the cards (health_check.cpp); the host copies
// before gpu.p2p, which judges its copies without P2P against them.
const gpu::GpuCheckSpec* const kGpuChecks[] = {
    &gpu::kInventoryCheck,  &gpu::kHealthCheck, &gpu::kMatmulCheck,     &gpu::kMemoryBandwidthCheck,
    &gpu::kMemtestCheck,    &gpu::kHostDeviceCopyCheck, &gpu::kPeerCheck, &gpu::kAllReduceCheck,
};

// The child jobs no check owns: their commands start them (cluster/, app/burn_command.cpp,
// node_check/).
struct CommandJob {
  const char* name;
  ChildJobFn fn;
};
const CommandJob kCommandJobs[] = {
    {gpu::kAllReduceRankJob, gpu::AllReduceRankJob},
    {gpu::kClusterGatherJob, gpu::ClusterGatherJob},
    {gpu::kBurnJob, gpu::BurnJob},
    {gpu::kNodeCheckJob, gpu::NodeCheckJob},
};

}  // namespace

void RegisterGpuChildJobs() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const gpu::GpuCheckSpec* check : kGpuChecks)
      if (check->job != nullptr) RegisterChildJob(check->job, check->job_fn);
    for (const CommandJob& job : kCommandJobs) RegisterChildJob(job.name, job.fn);
  });
}

void RegisterGpuChecks(Registry& registry) {
  RegisterGpuChildJobs();
  for (const gpu::GpuCheckSpec* check : kGpuChecks) registry.Add(gpu::ToCheck(*check));
}

}  // namespace labcheck

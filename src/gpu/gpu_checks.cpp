#include "gpu/gpu_checks.h"

#include <mutex>

#include "gpu/checks/gpu_check_list.h"
#include "gpu/jobs/gpu_jobs.h"
#include "runner/child_job.h"

namespace labcheck {

void RegisterGpuChildJobs() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterChildJob(gpu::kInventoryJob, gpu::InventoryJob);
    RegisterChildJob(gpu::kMatmulJob, gpu::MatmulJob);
    RegisterChildJob(gpu::kMemoryJob, gpu::MemoryJob);
    RegisterChildJob(gpu::kHostCopyJob, gpu::HostCopyJob);
    RegisterChildJob(gpu::kPeerJob, gpu::PeerJob);
    RegisterChildJob(gpu::kAllReduceJob, gpu::AllReduceJob);
    RegisterChildJob(gpu::kAllReduceRankJob, gpu::AllReduceRankJob);
    RegisterChildJob(gpu::kClusterGatherJob, gpu::ClusterGatherJob);
    RegisterChildJob(gpu::kHealthJob, gpu::HealthJob);
    RegisterChildJob(gpu::kBurnJob, gpu::BurnJob);
    RegisterChildJob(gpu::kNodeCheckJob, gpu::NodeCheckJob);
  });
}

void RegisterGpuChecks(Registry& registry) {
  RegisterGpuChildJobs();
  // Budgets are timeouts for the child, not expected durations: generous for 8 GPUs, and scaled
  // by --timeout-scale. The full GPU section aims at under 60 s per GPU (docs/gpu-checks.md).
  registry.Add({"gpu.inventory", "gpu", T("Видеокарты и драйвер", "GPUs and driver"), QuickMode::Full, false, 60,
                gpu::RunInventoryCheck});
  // Right after the inventory: "clock events at idle" and the idle temperature mean something only
  // before the benchmarks heat the cards.
  registry.Add({"gpu.health", "gpu", T("Состояние GPU", "GPU health"), QuickMode::Shortened, false, 60,
                gpu::RunHealthCheck});
  registry.Add({"gpu.matmul", "gpu", T("Умножение матриц (cuBLASLt)", "Matrix multiply (cuBLASLt)"), QuickMode::Shortened,
                false, 300, gpu::RunMatmulCheck});
  registry.Add({"gpu.memory_bandwidth", "gpu", T("Пропускная способность памяти GPU", "GPU memory bandwidth"),
                QuickMode::Shortened, false, 120, gpu::RunMemoryBandwidthCheck});
  registry.Add({"gpu.host_device_copy", "gpu", T("Копирование CPU↔GPU", "CPU↔GPU copies"), QuickMode::Shortened, false, 180,
                gpu::RunHostDeviceCopyCheck});
  registry.Add({"gpu.p2p", "gpu", T("P2P и копирование между картами", "P2P and GPU-to-GPU copies"), QuickMode::Shortened,
                false, 240, gpu::RunPeerCheck});
  registry.Add({"interconnect.allreduce", "interconnect", T("All-reduce через NCCL", "All-reduce through NCCL"),
                QuickMode::Shortened, /*distributed=*/true, 480, gpu::RunAllReduceCheck});
}

}  // namespace labcheck

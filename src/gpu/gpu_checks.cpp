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
  // Every check after the inventory reads it (which cards, which libraries).
  const std::vector<std::string> inventory = {"gpu.inventory"};
  registry.Add({.id = "gpu.inventory", .section = "gpu", .title = T("Видеокарты и драйвер", "GPUs and driver"),
                .quick = QuickMode::Full, .budget_s = 60, .run = gpu::RunInventoryCheck});
  // Right after the inventory: "clock events at idle" and the idle temperature mean something only
  // before the benchmarks heat the cards.
  registry.Add({.id = "gpu.health", .section = "gpu", .title = T("Состояние GPU", "GPU health"),
                .quick = QuickMode::Shortened, .budget_s = 60, .run = gpu::RunHealthCheck, .reads = inventory});
  registry.Add({.id = "gpu.matmul", .section = "gpu", .title = T("Умножение матриц (cuBLASLt)", "Matrix multiply (cuBLASLt)"),
                .quick = QuickMode::Shortened, .budget_s = 300, .run = gpu::RunMatmulCheck, .reads = inventory});
  registry.Add({.id = "gpu.memory_bandwidth", .section = "gpu",
                .title = T("Пропускная способность памяти GPU", "GPU memory bandwidth"), .quick = QuickMode::Shortened,
                .budget_s = 120, .run = gpu::RunMemoryBandwidthCheck, .reads = inventory});
  registry.Add({.id = "gpu.host_device_copy", .section = "gpu", .title = T("Копирование CPU↔GPU", "CPU↔GPU copies"),
                .quick = QuickMode::Shortened, .budget_s = 180, .run = gpu::RunHostDeviceCopyCheck, .reads = inventory});
  // GPU→GPU copies without P2P are judged against the host path this card measured.
  registry.Add({.id = "gpu.p2p", .section = "gpu", .title = T("P2P и копирование между картами", "P2P and GPU-to-GPU copies"),
                .quick = QuickMode::Shortened, .budget_s = 240, .run = gpu::RunPeerCheck,
                .reads = {"gpu.inventory", "gpu.host_device_copy"}});
  registry.Add({.id = "interconnect.allreduce", .section = "interconnect",
                .title = T("All-reduce через NCCL", "All-reduce through NCCL"), .quick = QuickMode::Shortened,
                .distributed = true, .budget_s = 480, .run = gpu::RunAllReduceCheck, .reads = inventory});
}

}  // namespace labcheck

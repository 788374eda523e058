#include "cpu_bench/cpu_checks.h"

#include "cpu_bench/matmul_check.h"
#include "cpu_bench/memory_bandwidth_check.h"

namespace labcheck {

void RegisterCpuChecks(Registry& registry) {
  // Budgets leave room for machines with a huge last-level cache (arrays of GiBs to first-touch)
  // and for slow ones without AVX; the runs themselves stop repeating after 2 s (quick) or 8 s.
  registry.Add(Check{
      .id = "cpu.memory_bandwidth",
      .section = "cpu",
      .title = T("Пропускная способность памяти", "Memory bandwidth"),
      .quick = QuickMode::Shortened,
      .budget_s = 60,
      .run = cpu_bench::RunMemoryBandwidthCheck,
  });
  registry.Add(Check{
      .id = "cpu.matmul",
      .section = "cpu",
      .title = T("Умножение матриц на CPU (FP32)", "Matrix multiply on the CPU (FP32)"),
      .quick = QuickMode::Shortened,
      .budget_s = 60,
      .run = cpu_bench::RunMatmulCheck,
  });
}

}  // namespace labcheck

// cpu.matmul: FP32 matrix multiply through OpenBLAS on all CPUs, against cores × clock × FLOP per
// cycle. Assessment is a pure function of the run.
#pragma once
#include <optional>
#include <string>

#include "core/check_result.h"
#include "cpu_bench/flops_peak.h"
#include "cpu_bench/machine_load.h"
#include "cpu_bench/sgemm_bench.h"
#include "runner/check.h"

namespace labcheck::cpu_bench {

struct MatmulInputs {
  SgemmRun run;
  std::optional<FlopsPeak> peak;
  Text peak_unavailable;  // why there is no peak, for the report
  bool virtualized = false;
  MachineLoad load;
  // OPENBLAS_CORETYPE as the environment set it (empty: unset): it makes OpenBLAS take that
  // kernel family whatever the CPU is, so a narrower one is the user's setting, not the library's.
  std::string openblas_coretype_env;
};

CheckResult AssessMatmul(const MatmulInputs& inputs);
CheckResult RunMatmulCheck(CheckContext& ctx);

}  // namespace labcheck::cpu_bench

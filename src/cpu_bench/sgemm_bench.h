// FP32 matrix multiply through OpenBLAS (linked statically from Debian's libopenblas-pthread):
// C = A·B for square row-major N×N matrices, 2·N³ floating-point operations per call.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "runner/cancel.h"

namespace labcheck::cpu_bench {

struct SgemmPlan {
  int threads = 1;
  double target_call_seconds = 0;  // the largest N whose call is predicted to fit is chosen
  int repeats = 0;                 // timed calls at that N, after one untimed call
  int max_n = 8192;                // 3 × 8192² floats = 768 MiB
};

// Quick: calls of ≤ 0.15 s, 3 of them; full: ≤ 1 s, 5 of them. `available_bytes` caps N so that
// the three matrices take at most a quarter of the free memory.
SgemmPlan PlanSgemm(int threads, bool quick, std::optional<uint64_t> available_bytes);

struct SgemmRun {
  int n = 0;
  int threads = 0;           // what OpenBLAS reports using after being asked for plan.threads
  std::string corename;      // the kernel family OpenBLAS chose for this CPU ("Haswell", "SkylakeX")
  std::string config;        // openblas_get_config(): version, build options, MAX_THREADS
  std::vector<double> seconds;

  double flop() const { return 2.0 * n * n * static_cast<double>(n); }
};

// Sizes N from a 1024³ trial, then times the calls. Fails when a checked entry of C is wrong
// (the inputs are chosen so every partial sum is exact in FP32: any difference is an error).
Result<SgemmRun> RunSgemm(const SgemmPlan& plan, const CancelToken& cancel,
                          const std::function<void(double, const std::string&)>& progress);

}  // namespace labcheck::cpu_bench

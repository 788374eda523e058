#include "cpu_bench/sgemm_bench.h"

#include <cblas.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace labcheck::cpu_bench {
namespace {

// Entries are k/8 for k in [-6, 6]: products are multiples of 1/64 and every partial sum of an
// N ≤ 8192 dot product stays below 2^24/64 in magnitude, so FP32 holds it exactly in any order.
float Entry(int row, int col, int salt) { return static_cast<float>((row * 7 + col * 3 + salt) % 13 - 6) / 8.0f; }

struct Matrices {
  int n;
  std::vector<float> a, b, c;
  explicit Matrices(int size) : n(size), a(size_t(size) * size), b(size_t(size) * size), c(size_t(size) * size) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        a[size_t(i) * n + j] = Entry(i, j, 0);
        b[size_t(i) * n + j] = Entry(i, j, 5);
      }
    }
  }
  double Multiply() {
    auto begin = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  }
  // Recomputes a few entries (corners and the middle) in double: they must match exactly.
  bool Check() const {
    for (int i : {0, n / 2, n - 1}) {
      for (int j : {0, n / 3, n - 1}) {
        double sum = 0;
        for (int k = 0; k < n; ++k) sum += double(a[size_t(i) * n + k]) * b[size_t(k) * n + j];
        if (sum != c[size_t(i) * n + j]) return false;
      }
    }
    return true;
  }
};

}  // namespace

SgemmPlan PlanSgemm(int threads, bool quick, std::optional<uint64_t> available_bytes) {
  SgemmPlan plan;
  plan.threads = threads;
  plan.target_call_seconds = quick ? 0.15 : 1.0;
  plan.repeats = quick ? 3 : 5;
  while (available_bytes && plan.max_n > 1024 &&
         3.0 * 4 * plan.max_n * plan.max_n > *available_bytes / 4.0) {
    plan.max_n /= 2;
  }
  return plan;
}

Result<SgemmRun> RunSgemm(const SgemmPlan& plan, const CancelToken& cancel,
                          const std::function<void(double, const std::string&)>& progress) {
  // Without this OpenBLAS uses OPENBLAS_NUM_THREADS from the user's shell, often set to 1.
  openblas_set_num_threads(plan.threads);
  SgemmRun run;
  run.threads = openblas_get_num_threads();
  run.corename = openblas_get_corename();
  run.config = openblas_get_config();

  // The trial: the first call also allocates OpenBLAS's buffers, so the second one is timed.
  progress(0, "sgemm 1024 trial");
  double trial_seconds;
  {
    Matrices trial(1024);
    trial.Multiply();
    trial_seconds = trial.Multiply();
    if (!trial.Check()) return Status::Error("OpenBLAS sgemm returned a wrong product at N = 1024");
  }
  run.n = 1024;
  for (int n = 2048; n <= plan.max_n; n *= 2) {
    double predicted = trial_seconds * std::pow(n / 1024.0, 3);
    if (predicted > plan.target_call_seconds) break;
    run.n = n;
  }
  if (cancel.cancelled()) return run;

  Matrices m(run.n);
  m.Multiply();  // untimed: page faults on C, packing buffers at this size
  for (int r = 0; r < plan.repeats && !cancel.cancelled(); ++r) {
    progress(static_cast<double>(r) / plan.repeats, fmt::format("sgemm {} {}/{}", run.n, r + 1, plan.repeats));
    run.seconds.push_back(m.Multiply());
  }
  if (!m.Check()) {
    return Status::Error(fmt::format("OpenBLAS sgemm returned a wrong product at N = {}", run.n));
  }
  return run;
}

}  // namespace labcheck::cpu_bench

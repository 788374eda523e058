// One GEMM through cuBLASLt on one GPU: D = Aᵀ·B ("TN", the layout FP8 requires and the fastest
// on tensor cores for every type), M = N = K = 8192 unless memory says otherwise, FP32
// accumulation (TF32 for FP32 inputs). Counted as 2·M·N·K FLOPs per call. Timed with CUDA events
// around each call of a back-to-back series; the figure is the median call.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/status.h"
#include "gpu/bench/device_resources.h"
#include "gpu/bench/host_numbers.h"
#include "gpu/bench/matmul_inputs.h"
#include "gpu/bench/nvml_sampler.h"
#include "gpu/bench/stats.h"
#include "gpu/nvidia/cublaslt_library.h"

namespace labcheck::gpu {

struct MatmulPlan {
  int size = 8192;
  int warmup = 5;
  int algo_candidates = 4;   // heuristic's top choices timed before the run; the fastest is kept
  int algo_trials = 3;
  int min_repeats = 20;
  double target_timed_ms = 1500;  // sustained load, so that a power cap has time to show
  int max_repeats = 2000;
  int spot_samples = 32;

  static MatmulPlan Quick() { return MatmulPlan{8192, 2, 1, 1, 5, 150, 200, 16}; }
};

struct MatmulFigure {
  MatmulPrecision precision = MatmulPrecision::BF16;
  int size = 0;
  Sampled call_ms;
  double tflops = 0;  // from the median call
  int algos_timed = 0;
  SpotCheck check;
  NvmlSamples nvml;
};

// Whether the GPU's tensor cores do this precision (compute capability major*10 + minor).
bool PrecisionSupported(MatmulPrecision precision, int cc);

class MatmulBench {
 public:
  // Takes the random inputs for its size from `inputs` (made once, shared by every GPU of the
  // job), copies them in, plans the GEMM. The caller made `context` current on this thread.
  static Result<std::unique_ptr<MatmulBench>> Prepare(const CublasLt& lt, const DeviceContext& context,
                                                      MatmulPrecision precision, const MatmulPlan& plan,
                                                      MatmulInputCache& inputs);
  ~MatmulBench();
  // `ready` (optional) is called after the warm-up and the choice of algorithm, right before the
  // timed series: where the threads of an "all GPUs at once" run meet.
  Result<MatmulFigure> Run(const Nvml* nvml, nvml::nvmlDevice_t device, const std::function<void()>& ready = {});

  // Sustained load for the burn test: `calls` back-to-back calls with the heuristic's first
  // algorithm; returns the sum of their CUDA-event times in ms (device time, not host time).
  Result<double> RunCalls(int calls);
  // The spot check of the product now in D (the last call's).
  Result<SpotCheck> CheckLast(uint64_t seed) { return Check(plan_.spot_samples, seed); }
  double flops_per_call() const { return 2.0 * n_ * n_ * static_cast<double>(n_); }
  int size() const { return n_; }

 private:
  MatmulBench(const CublasLt& lt, const DeviceContext& context) : lt_(lt), context_(context) {}
  Status Enqueue(const cublaslt::cublasLtMatmulAlgo_t& algo);
  Result<double> TimeSeries(const cublaslt::cublasLtMatmulAlgo_t& algo, int calls, std::vector<double>* per_call_ms,
                            NvmlSampler* sampler = nullptr);
  Result<SpotCheck> Check(int samples, uint64_t seed);

  const CublasLt& lt_;
  const DeviceContext& context_;
  MatmulPrecision precision_ = MatmulPrecision::BF16;
  MatmulPlan plan_;
  int n_ = 0;
  std::shared_ptr<const MatmulInputs> inputs_;  // as the GPU sees them, for the spot check
  DeviceBuffer a_, b_, d_, workspace_;
  Stream stream_;
  cublaslt::cublasLtHandle_t handle_ = nullptr;
  cublaslt::cublasLtMatmulDesc_t desc_ = nullptr;
  cublaslt::cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, d_layout_ = nullptr;
  std::vector<cublaslt::cublasLtMatmulHeuristicResult_t> algos_;
};

}  // namespace labcheck::gpu

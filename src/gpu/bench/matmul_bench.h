// One GEMM through cuBLASLt on one GPU: D = Aᵀ·B ("TN", the layout FP8 requires and the fastest
// on tensor cores for every type), M = N = K = 8192 unless memory says otherwise, FP32
// accumulation (TF32 for FP32 inputs; FP8 with CUBLASLT_MATMUL_DESC_FAST_ACCUM, as the FP8 peaks
// people quote are measured). Counted as 2·M·N·K FLOPs per call. First a warm-up for a time, until
// the clocks have settled; then the heuristic's top algorithms are timed and the fastest kept;
// then a back-to-back series timed with CUDA events around each call; the figure is the median.
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
  // Warm-up, in device time (CUDA events), before anything is compared: a card leaving an idle
  // power state needs its clocks to come up, and a count of calls is a different time on every
  // card. At least warmup_min_ms back to back; then batch after batch of warmup_batch_ms while a
  // batch's median call is still more than settle_fraction faster than the batch before (the
  // clocks are still rising), up to warmup_max_ms. 200 ms is four times nvbench's default
  // --throttle-recovery-delay (50 ms, what it waits for clocks to come back) and, on an H200
  // (8192³ BF16 ≈ 1.5 ms), about 130 calls: more than mamf-finder's 50 warm-up iterations per
  // shape. docs/gpu-checks.md says more.
  double warmup_min_ms = 200;
  double warmup_max_ms = 2000;
  double warmup_batch_ms = 50;
  double settle_fraction = 0.01;
  int algo_candidates = 4;   // heuristic's top choices timed after the warm-up; the fastest is kept
  int algo_trials = 3;
  int min_repeats = 20;
  double target_timed_ms = 1500;  // sustained load, so that a power cap has time to show
  int max_repeats = 2000;
  int spot_samples = 32;

  // --quick: a shorter warm-up (100 ms, twice nvbench's recovery delay, still followed by the
  // settle rule, capped at 1 s), the heuristic's first algorithm, a 150 ms series.
  static MatmulPlan Quick() {
    MatmulPlan plan;
    plan.warmup_min_ms = 100;
    plan.warmup_max_ms = 1000;
    plan.algo_candidates = 1;
    plan.algo_trials = 1;
    plan.min_repeats = 5;
    plan.target_timed_ms = 150;
    plan.max_repeats = 200;
    plan.spot_samples = 16;
    return plan;
  }
};

// What the warm-up did, in device time.
struct MatmulWarmUp {
  double device_ms = 0;  // CUDA-event time of the warm-up calls, the first call not counted
  int calls = 0;
  double settled_call_ms = 0;  // median call of the last batch
  bool settled = false;        // false: stopped at warmup_max_ms with the calls still getting faster
};

struct MatmulFigure {
  MatmulPrecision precision = MatmulPrecision::BF16;
  int size = 0;
  Sampled call_ms;
  double tflops = 0;  // from the median call
  int algos_timed = 0;
  bool fast_accumulation = false;  // CUBLASLT_MATMUL_DESC_FAST_ACCUM was set (FP8)
  MatmulWarmUp warmup;
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

  // The warm-up Run does first (MatmulPlan): the heuristic's first algorithm back to back until
  // the clocks have settled. The burn test calls it before its timeline starts.
  Result<MatmulWarmUp> WarmUp();
  // Sustained load for the burn test: `calls` back-to-back calls with the heuristic's first
  // algorithm; returns the sum of their CUDA-event times in ms (device time, not host time).
  Result<double> RunCalls(int calls);
  // The spot check of the product now in D (the last call's).
  Result<SpotCheck> CheckLast(uint64_t seed) { return Check(plan_.spot_samples, seed); }
  double flops_per_call() const { return 2.0 * n_ * n_ * static_cast<double>(n_); }
  int size() const { return n_; }

 private:
  MatmulBench(const CublasLt& lt, const DeviceContext& context) : lt_(lt), context_(context) {}
  // Prepare's steps, in this order: the inputs on the GPU, the GEMM described, its algorithms chosen.
  Status UploadInputs(MatmulInputCache& inputs);
  Status DescribeGemm();
  Status ChooseAlgorithms();
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

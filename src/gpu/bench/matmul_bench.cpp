#include "gpu/bench/matmul_bench.h"

#include <algorithm>
#include <cmath>

namespace labcheck::gpu {

namespace {

using namespace cublaslt;

// Input sizes come from InputBytes (matmul_inputs.h), which also lays out the host matrices.
struct Formats {
  cudaDataType_t input;
  cudaDataType_t output;
  cublasComputeType_t compute;
  size_t output_bytes;
};

Formats FormatsFor(MatmulPrecision precision) {
  switch (precision) {
    case MatmulPrecision::BF16: return {kR16BF, kR16BF, kCompute32F, 2};
    case MatmulPrecision::FP16: return {kR16F, kR16F, kCompute32F, 2};
    case MatmulPrecision::TF32: return {kR32F, kR32F, kCompute32FFastTF32, 4};
    case MatmulPrecision::FP8: return {kR8FE4M3, kR16BF, kCompute32F, 2};
  }
  return {kR32F, kR32F, kCompute32F, 4};
}

constexpr size_t kWorkspaceBytes = 32u << 20;  // what cuBLAS recommends for Hopper

// D is in the inputs' format, except FP8's, which is BF16 (FormatsFor).
double OutputToDouble(MatmulPrecision precision, const uint8_t* raw) {
  return DecodeInput(precision == MatmulPrecision::FP8 ? MatmulPrecision::BF16 : precision, raw);
}

Status LtStatus(const CublasLt& lt, cublasStatus_t s, const char* what) {
  return s == kStatusSuccess ? Status::Ok() : Status::Error(std::string(what) + " failed: " + lt.Describe(s));
}

// The side of the square matrices: the plan's, shrunk only if they do not fit; the report states
// the size used.
Result<int> FittingSide(const CudaDriver& driver, MatmulPrecision precision, int side) {
  size_t free_bytes = 0, total_bytes = 0;
  Status status = driver.Check(driver.api().cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
  if (!status.ok()) return status;
  const Formats formats = FormatsFor(precision);
  auto needed = [&](size_t n) {
    return n * n * (2 * InputBytes(precision) + formats.output_bytes) + kWorkspaceBytes;
  };
  int n = side;
  while (n > 1024 && needed(n) * 5 / 4 > free_bytes) n /= 2;
  return n;
}

}  // namespace

bool PrecisionSupported(MatmulPrecision precision, int cc) {
  switch (precision) {
    case MatmulPrecision::FP16: return cc >= 70;
    case MatmulPrecision::BF16:
    case MatmulPrecision::TF32: return cc >= 80;
    case MatmulPrecision::FP8: return cc >= 89;
  }
  return false;
}

Result<std::unique_ptr<MatmulBench>> MatmulBench::Prepare(const CublasLt& lt, const DeviceContext& context,
                                                           MatmulPrecision precision, const MatmulPlan& plan,
                                                           MatmulInputCache& inputs) {
  std::unique_ptr<MatmulBench> bench(new MatmulBench(lt, context));
  bench->precision_ = precision;
  bench->plan_ = plan;
  Result<int> side = FittingSide(context.driver(), precision, plan.size);
  if (!side.ok()) return side.status();
  bench->n_ = *side;
  Status status = bench->UploadInputs(inputs);
  if (status.ok()) status = bench->DescribeGemm();
  if (status.ok()) status = bench->ChooseAlgorithms();
  if (!status.ok()) return status;
  return bench;
}

Status MatmulBench::UploadInputs(MatmulInputCache& inputs) {
  const CudaDriver& driver = context_.driver();
  const Formats formats = FormatsFor(precision_);
  const size_t elements = static_cast<size_t>(n_) * n_;
  inputs_ = inputs.Get(precision_, n_);
  const MatmulInputs& host = *inputs_;
  for (auto [buffer, bytes] : {std::pair{&a_, elements * InputBytes(precision_)},
                               std::pair{&b_, elements * InputBytes(precision_)},
                               std::pair{&d_, elements * formats.output_bytes},
                               std::pair{&workspace_, kWorkspaceBytes}}) {
    Result<DeviceBuffer> allocated = DeviceBuffer::Allocate(driver, bytes);
    if (!allocated.ok()) return allocated.status();
    *buffer = std::move(allocated).value();
  }
  Status status = driver.Check(driver.api().cuMemcpyHtoD(a_.get(), host.a(), host.matrix_bytes()), "cuMemcpyHtoD");
  if (status.ok())
    status = driver.Check(driver.api().cuMemcpyHtoD(b_.get(), host.b(), host.matrix_bytes()), "cuMemcpyHtoD");
  // Pageable copies on the default stream may return before their DMA ends, and the GEMMs run
  // on a non-blocking stream that does not wait for it.
  if (status.ok()) status = WaitForSetup(driver);
  if (!status.ok()) return status;
  Result<Stream> stream = Stream::Create(driver);
  if (!stream.ok()) return stream.status();
  stream_ = std::move(stream).value();
  return Status::Ok();
}

// D = Aᵀ·B in the precision's formats, and the three matrices' layouts.
Status MatmulBench::DescribeGemm() {
  const Formats formats = FormatsFor(precision_);
  const CublasLtApi& api = lt_.api();
  auto check = [&](cublasStatus_t s, const char* what) { return LtStatus(lt_, s, what); };
  Status status = check(api.cublasLtCreate(&handle_), "cublasLtCreate");
  if (status.ok()) status = check(api.cublasLtMatmulDescCreate(&desc_, formats.compute, kR32F), "cublasLtMatmulDescCreate");
  if (!status.ok()) return status;
  const cublasOperation_t transpose = kOpT, keep = kOpN;
  // Unset, TRANSA stays N: the GEMM would run NN (slower, and wrong against the TN spot check).
  status = check(api.cublasLtMatmulDescSetAttribute(desc_, kMatmulDescTransA, &transpose, sizeof transpose),
                 "cublasLtMatmulDescSetAttribute(TRANSA)");
  if (status.ok())
    status = check(api.cublasLtMatmulDescSetAttribute(desc_, kMatmulDescTransB, &keep, sizeof keep),
                   "cublasLtMatmulDescSetAttribute(TRANSB)");
  // FP8 as its quoted peaks are measured (cuBLAS's own figures, torch._scaled_mm(use_fast_accum=True)
  // in the FP8 benchmarks): without it Hopper promotes the partial sums to FP32 every few steps and
  // runs 10-20 % slower (cublasLt.h: CUBLASLT_MATMUL_DESC_FAST_ACCUM).
  if (status.ok() && precision_ == MatmulPrecision::FP8) {
    const int8_t fast_accumulation = 1;
    status = check(api.cublasLtMatmulDescSetAttribute(desc_, kMatmulDescFastAccum, &fast_accumulation,
                                                      sizeof fast_accumulation),
                   "cublasLtMatmulDescSetAttribute(FAST_ACCUM)");
  }
  if (!status.ok()) return status;
  const int n = n_;
  status = check(api.cublasLtMatrixLayoutCreate(&a_layout_, formats.input, n, n, n), "cublasLtMatrixLayoutCreate");
  if (status.ok()) status = check(api.cublasLtMatrixLayoutCreate(&b_layout_, formats.input, n, n, n), "cublasLtMatrixLayoutCreate");
  if (status.ok()) status = check(api.cublasLtMatrixLayoutCreate(&d_layout_, formats.output, n, n, n), "cublasLtMatrixLayoutCreate");
  return status;
}

// The heuristic's candidates within the workspace, best first (plan_.algo_candidates of them at most).
Status MatmulBench::ChooseAlgorithms() {
  const CublasLtApi& api = lt_.api();
  cublasLtMatmulPreference_t preference = nullptr;
  Status status = LtStatus(lt_, api.cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  if (!status.ok()) return status;
  const size_t workspace = kWorkspaceBytes;
  status = LtStatus(lt_, api.cublasLtMatmulPreferenceSetAttribute(preference, kMatmulPrefMaxWorkspaceBytes, &workspace, sizeof workspace),
                    "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  if (!status.ok()) {
    api.cublasLtMatmulPreferenceDestroy(preference);
    return status;
  }
  algos_.resize(std::max(1, plan_.algo_candidates));
  int returned = 0;
  cublasStatus_t heuristic = api.cublasLtMatmulAlgoGetHeuristic(
      handle_, desc_, a_layout_, b_layout_, d_layout_, d_layout_,
      preference, static_cast<int>(algos_.size()), algos_.data(), &returned);
  api.cublasLtMatmulPreferenceDestroy(preference);
  if (heuristic != kStatusSuccess || returned == 0) {
    return Status::Error("cuBLASLt has no algorithm for this GEMM on this GPU: " + lt_.Describe(heuristic));
  }
  algos_.resize(returned);
  return Status::Ok();
}

MatmulBench::~MatmulBench() {
  const CublasLtApi& api = lt_.api();
  if (d_layout_) api.cublasLtMatrixLayoutDestroy(d_layout_);
  if (b_layout_) api.cublasLtMatrixLayoutDestroy(b_layout_);
  if (a_layout_) api.cublasLtMatrixLayoutDestroy(a_layout_);
  if (desc_) api.cublasLtMatmulDescDestroy(desc_);
  if (handle_) api.cublasLtDestroy(handle_);
}

Status MatmulBench::Enqueue(const cublasLtMatmulAlgo_t& algo) {
  const float alpha = 1, beta = 0;
  cublasStatus_t s = lt_.api().cublasLtMatmul(handle_, desc_, &alpha, a_.as_pointer(), a_layout_, b_.as_pointer(),
                                              b_layout_, &beta, d_.as_pointer(), d_layout_, d_.as_pointer(), d_layout_,
                                              &algo, workspace_.as_pointer(), workspace_.bytes(), stream_.get());
  return s == kStatusSuccess ? Status::Ok() : Status::Error("cublasLtMatmul failed: " + lt_.Describe(s));
}

Result<double> MatmulBench::TimeSeries(const cublasLtMatmulAlgo_t& algo, int calls, std::vector<double>* per_call_ms,
                                       NvmlSampler* sampler) {
  const CudaDriver& driver = context_.driver();
  std::vector<EventTimer> timers;
  timers.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    Result<EventTimer> timer = EventTimer::Create(driver);
    if (!timer.ok()) return timer.status();
    timers.push_back(std::move(timer).value());
  }
  // Back to back, synchronised once at the end: the GPU never idles between calls.
  for (EventTimer& timer : timers) {
    Status status = timer.Start(stream_);
    if (status.ok()) status = Enqueue(algo);
    if (status.ok()) status = timer.Stop(stream_);
    if (!status.ok()) return status;
    if (sampler != nullptr) sampler->SetBusy(true);
  }
  if (sampler != nullptr) sampler->SampleNow();  // the series is queued: the GPU is at work
  per_call_ms->clear();
  for (EventTimer& timer : timers) {
    Result<double> ms = timer.ElapsedMs();
    if (!ms.ok()) return ms.status();
    per_call_ms->push_back(*ms);
  }
  if (sampler != nullptr) sampler->SetBusy(false);
  return Summarise(*per_call_ms).median;
}

Result<MatmulWarmUp> MatmulBench::WarmUp() {
  Status status = context_.MakeCurrent();
  if (!status.ok()) return status;
  MatmulWarmUp warmup;
  std::vector<double> times;
  // The first call alone, not counted: it also pays for loading the kernel's module.
  Result<double> first = TimeSeries(algos_[0].algo, 1, &times);
  if (!first.ok()) return first.status();
  double previous_ms = *first;
  while (true) {
    const int batch = std::clamp(static_cast<int>(std::ceil(plan_.warmup_batch_ms / std::max(previous_ms, 1e-3))), 1, 1000);
    Result<double> median = TimeSeries(algos_[0].algo, batch, &times);
    if (!median.ok()) return median.status();
    for (double ms : times) warmup.device_ms += ms;
    warmup.calls += batch;
    const bool still_rising = *median < previous_ms * (1 - plan_.settle_fraction);
    previous_ms = *median;
    if (warmup.device_ms >= plan_.warmup_min_ms && !still_rising) {
      warmup.settled = true;
      break;
    }
    if (warmup.device_ms >= plan_.warmup_max_ms) break;
  }
  warmup.settled_call_ms = previous_ms;
  return warmup;
}

Result<MatmulFigure> MatmulBench::Run(const Nvml* nvml, nvml::nvmlDevice_t device, const std::function<void()>& ready) {
  Status status = context_.MakeCurrent();
  if (!status.ok()) return status;
  MatmulFigure figure;
  figure.precision = precision_;
  figure.size = n_;
  figure.fast_accumulation = precision_ == MatmulPrecision::FP8;
  // Clocks up first: candidates timed on a card that is still clocking up favour whichever runs
  // last, and a series started early reports the ramp, not the card.
  Result<MatmulWarmUp> warm = WarmUp();
  if (!warm.ok()) return warm.status();
  figure.warmup = *warm;
  std::vector<double> times;
  size_t best = 0;
  double best_ms = warm->settled_call_ms;
  if (algos_.size() > 1) {
    best_ms = INFINITY;
    for (size_t i = 0; i < algos_.size(); ++i) {
      Result<double> trial = TimeSeries(algos_[i].algo, plan_.algo_trials, &times);
      if (trial.ok() && *trial < best_ms) {
        best_ms = *trial;
        best = i;
      }
    }
  }
  figure.algos_timed = static_cast<int>(algos_.size());
  int repeats = plan_.min_repeats;
  if (best_ms > 0 && std::isfinite(best_ms))
    repeats = std::clamp(static_cast<int>(plan_.target_timed_ms / best_ms), plan_.min_repeats, plan_.max_repeats);

  if (ready) ready();  // all GPUs at once: the timed series start together, after every warm-up
  NvmlSampler sampler(nvml, device);
  Result<double> timed = TimeSeries(algos_[best].algo, repeats, &times, &sampler);
  figure.nvml = sampler.Stop();
  if (!timed.ok()) return timed.status();
  figure.call_ms = Summarise(times);
  figure.tflops = TeraflopsPerSecond(2.0 * n_ * n_ * static_cast<double>(n_), figure.call_ms.median);
  Result<SpotCheck> checked = Check(plan_.spot_samples, 0x5EED ^ static_cast<uint64_t>(context_.ordinal()));
  if (!checked.ok()) return checked.status();
  figure.check = *checked;
  return figure;
}

Result<double> MatmulBench::RunCalls(int calls) {
  Status status = context_.MakeCurrent();
  if (!status.ok()) return status;
  std::vector<double> times;
  Result<double> median = TimeSeries(algos_[0].algo, calls, &times);
  if (!median.ok()) return median.status();
  double total = 0;
  for (double ms : times) total += ms;
  return total;
}

Result<SpotCheck> MatmulBench::Check(int samples, uint64_t seed) {
  const CudaDriver& driver = context_.driver();
  Status status = stream_.Synchronize();
  if (!status.ok()) return status;
  FastRandom random(seed);
  SpotCheck check;
  const ErrorModel model = ErrorModelFor(precision_);
  const size_t out_bytes = FormatsFor(precision_).output_bytes;
  for (int i = 0; i < samples; ++i) {
    int m = static_cast<int>(random.Next() % n_), n = static_cast<int>(random.Next() % n_);
    uint8_t raw[4] = {};
    size_t offset = (static_cast<size_t>(n) * n_ + m) * out_bytes;  // D is column-major, ld = M
    status = driver.Check(driver.api().cuMemcpyDtoH(raw, d_.get() + offset, out_bytes), "cuMemcpyDtoH");
    if (!status.ok()) return status;
    const std::vector<float> row = inputs_->ColumnOfA(m), column = inputs_->ColumnOfB(n);
    CountSample(SampleErrorRatio(row.data(), column.data(), n_, OutputToDouble(precision_, raw), model), &check);
  }
  return check;
}

}  // namespace labcheck::gpu

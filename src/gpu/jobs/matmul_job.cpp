// Child job "gpu-matmul": cuBLASLt GEMMs on every GPU one by one (BF16, FP16, TF32, FP8 where the
// GPU has it), BF16 also on all GPUs at once. `--quick`: BF16 only (FP16 on a card without BF16,
// such as a V100), short. Precision by precision, so that each precision's inputs are made once
// and shared by every GPU.
#include <algorithm>

#include <fmt/format.h>

#include "gpu/bench/concurrent.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/figure_json.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/job_bodies.h"

namespace labcheck::gpu {

namespace {

Result<MatmulFigure> RunOne(GpuRuntime& runtime, const CublasLt& lt, int ordinal, MatmulPrecision precision,
                            const MatmulPlan& plan, MatmulInputCache& inputs, const std::function<void()>& ready) {
  Result<std::shared_ptr<DeviceContext>> context = runtime.Context(ordinal);
  if (!context.ok()) return context.status();
  Result<std::unique_ptr<MatmulBench>> bench = MatmulBench::Prepare(lt, **context, precision, plan, inputs);
  if (!bench.ok()) return bench.status();
  return (*bench)->Run(runtime.nvml(), runtime.NvmlDevice(ordinal), ready);
}

}  // namespace

Result<nlohmann::json> MatmulJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  nlohmann::json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  Result<const CublasLt*> lt = runtime->cublaslt();
  if (!lt.ok()) {
    nlohmann::json skip = SkipEnvelope(
        T("нет подходящей cuBLASLt: ни в системе, ни в site-packages Python", "no usable cuBLASLt, neither system-wide nor in Python's site-packages"),
        T("pip install torch (его колёса приносят cuBLAS) или обновите драйвер, если cuBLASLt новее его; для карт "
          "с compute capability ниже 7.5 (V100, P100) нужна cuBLASLt из CUDA 12: pip install nvidia-cublas-cu12",
          "pip install torch (its wheels bring cuBLAS), or update the driver if cuBLASLt is newer than it; cards "
          "below compute capability 7.5 (V100, P100) need a CUDA 12 cuBLASLt: pip install nvidia-cublas-cu12"),
        lt.status().message());
    skip["libraries"] = runtime->LibrariesJson();
    return skip;
  }
  return MatmulJobOn(*runtime, **lt, args);
}

nlohmann::json MatmulJobOn(GpuRuntime& runtime, const CublasLt& lt, const JobArgs& args) {
  const MatmulPlan plan = args.quick ? MatmulPlan::Quick() : MatmulPlan{};
  const std::vector<MatmulPrecision> precisions = {MatmulPrecision::BF16, MatmulPrecision::FP16, MatmulPrecision::TF32,
                                                   MatmulPrecision::FP8};
  // --quick measures one precision per card: BF16, or FP16 where the card has no BF16.
  auto measured_in_quick = [](MatmulPrecision precision, int cc) {
    return precision == MatmulPrecision::BF16 ||
           (precision == MatmulPrecision::FP16 && !PrecisionSupported(MatmulPrecision::BF16, cc));
  };

  nlohmann::json out = OkEnvelope();
  out["method"] = fmt::format(
      "cuBLASLt D = A^T*B (TN), M=N=K=size, FP32 accumulation (TF32 for fp32 inputs; fp8 with "
      "CUBLASLT_MATMUL_DESC_FAST_ACCUM), 2*M*N*K FLOPs per call; warm-up of at least {:.0f} ms device time until "
      "the calls stop getting faster, then the heuristic's top {} algorithms timed, then CUDA events around each "
      "call of a back-to-back series, median",
      plan.warmup_min_ms, plan.algo_candidates);
  out["method_ru"] = fmt::format(
      "cuBLASLt D = A^T*B (TN), M=N=K=size, накопление в FP32 (TF32 для входов fp32; fp8 с "
      "CUBLASLT_MATMUL_DESC_FAST_ACCUM), 2*M*N*K FLOP на вызов; прогрев не меньше {:.0f} мс времени устройства, пока "
      "вызовы не перестанут ускоряться, затем замер {} лучших алгоритмов эвристики, затем события CUDA вокруг каждого "
      "вызова серии подряд, медиана",
      plan.warmup_min_ms, plan.algo_candidates);
  const int count = runtime.device_count();
  std::vector<nlohmann::json> gpus(count);
  std::vector<std::vector<std::string>> reasons(count);
  for (int i = 0; i < count; ++i) gpus[i] = {{"index", i}, {"figures", nlohmann::json::object()}};
  MatmulInputCache inputs(0xC0FFEE);
  bool all_correct = true;
  bool every_card_has_bf16 = true;  // the all-at-once run is BF16: not on a machine with a V100 in it
  for (int i = 0; i < count; ++i)
    every_card_has_bf16 = every_card_has_bf16 && PrecisionSupported(MatmulPrecision::BF16, runtime.ComputeCapability(i));
  for (MatmulPrecision precision : precisions) {
    const char* key = PrecisionKey(precision);
    for (int i = 0; i < count; ++i) {
      const int cc = runtime.ComputeCapability(i);
      if (args.quick && !measured_in_quick(precision, cc)) continue;
      if (!PrecisionSupported(precision, cc)) {
        gpus[i]["figures"][key] = {{"skipped", "not supported by compute capability " + std::to_string(cc / 10) + "." +
                                                   std::to_string(cc % 10)}};
        continue;
      }
      Result<MatmulFigure> figure = RunOne(runtime, lt, i, precision, plan, inputs, {});
      if (!figure.ok()) {
        gpus[i]["figures"][key] = {{"error", figure.status().message()}};
        continue;
      }
      gpus[i]["figures"][key] = MatmulFigureJson(*figure);
      all_correct = all_correct && figure->check.ok();
      for (const std::string& r : figure->nvml.ReasonNames())
        if (std::find(reasons[i].begin(), reasons[i].end(), r) == reasons[i].end()) reasons[i].push_back(r);
    }
    // All GPUs at once in BF16, while its inputs are still at hand.
    if (precision == MatmulPrecision::BF16 && count > 1 && every_card_has_bf16) {
      std::vector<Result<MatmulFigure>> all =
          RunOnEveryDevice<MatmulFigure>(count, [&](int i, const std::function<void()>& ready) {
            return RunOne(runtime, lt, i, MatmulPrecision::BF16, plan, inputs, ready);
          });
      nlohmann::json together = nlohmann::json::array();
      for (size_t i = 0; i < all.size(); ++i) {
        if (all[i].ok()) together.push_back({{"index", i}, {"tflops", all[i]->tflops},
                                             {"clock_event_reasons", all[i]->nvml.ReasonNames()}});
        else together.push_back({{"index", i}, {"error", all[i].status().message()}});
      }
      out["concurrent"] = {{"precision", "bf16"}, {"gpus", together}};
    }
  }
  out["gpus"] = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    gpus[i]["clock_event_reasons"] = reasons[i];
    out["gpus"].push_back(gpus[i]);
  }
  out["all_correct"] = all_correct;
  out["libraries"] = runtime.LibrariesJson();
  return out;
}

}  // namespace labcheck::gpu

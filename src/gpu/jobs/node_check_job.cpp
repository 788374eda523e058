// Child job "gpu-node-check": what `lab_check node-check` judges (src/node_check/), in one process
// so that the driver initialises once: the inventory (with each GPU's NVLink states), gpu.health's
// facts with its short load window, then per GPU one short BF16 matmul and one device copy. Each
// part's wall time is in "timings_s": the scheduler's prolog budget is the point of this mode.
// With `--memtest-seconds S --memtest-log FILE` (node-check --memtest), last, the memory test on
// every card at once for S seconds of GPU time (gpu/memtest/), its lines into FILE as they come.
#include <algorithm>
#include <chrono>

#include "core/units.h"
#include "gpu/bench/copy_bench.h"
#include "gpu/bench/kernel_module.h"
#include "gpu/bench/matmul_bench.h"
#include "gpu/bench/sm_copy_bench.h"
#include "gpu/health/nvlink_errors.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/figure_json.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/job_bodies.h"
#include "gpu/jobs/memtest_card.h"
#include "gpu/bench/concurrent.h"
#include "gpu/nvidia/nvml_health_library.h"
#include "gpu/topology_reader.h"

namespace labcheck::gpu {

namespace {

using nlohmann::json;

// 256 MiB is past every current L2 (50–96 MiB) several times over, and copied in well under a
// millisecond on an HBM card: the copy's cost is its set-up, not the bytes.
constexpr size_t kCopyBytes = 256 * kMiB;

// The quick matmul plan with a tighter warm-up cap: ≤ 1 s per card in all (issue 22). A card whose
// clocks have not settled by 600 ms is slow for the scheduler's purpose too.
MatmulPlan NodeCheckMatmulPlan() {
  MatmulPlan plan = MatmulPlan::Quick();
  plan.warmup_max_ms = 600;
  return plan;
}

class Stopwatch {
 public:
  double Lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

json NvLinkJson(const GpuRuntime& runtime, int ordinal) {
  if (runtime.nvml() == nullptr) return {{"na", "NVML did not load"}};
  const NvLinkStates s = ReadNvLinkStates(runtime.nvml()->api(), runtime.NvmlDevice(ordinal));
  if (!s.queried) return {{"na", "no nvmlDeviceGetNvLinkState or no NVML handle for this GPU"}};
  return {{"active", s.active}, {"down", s.down}};
}

// BF16, or FP16 on a card without BF16 (V100), as the full check's --quick measures.
json Matmul(GpuRuntime& runtime, int ordinal, MatmulInputCache& inputs) {
  Result<const CublasLt*> lt = runtime.cublaslt();
  if (!lt.ok()) return {{"na", lt.status().message()}};
  const int cc = runtime.ComputeCapability(ordinal);
  const MatmulPrecision precision =
      PrecisionSupported(MatmulPrecision::BF16, cc) ? MatmulPrecision::BF16 : MatmulPrecision::FP16;
  Result<std::shared_ptr<DeviceContext>> context = runtime.Context(ordinal);
  if (!context.ok()) return {{"error", context.status().message()}};
  Result<std::unique_ptr<MatmulBench>> bench = MatmulBench::Prepare(**lt, **context, precision, NodeCheckMatmulPlan(), inputs);
  if (!bench.ok()) return {{"error", bench.status().message()}};
  Result<MatmulFigure> figure = (*bench)->Run(runtime.nvml(), runtime.NvmlDevice(ordinal));
  if (!figure.ok()) return {{"error", figure.status().message()}};
  json out = MatmulFigureJson(*figure);
  out["precision"] = PrecisionKey(precision);
  return out;
}

// lab_check's SM copy kernel, the figure gpu.memory_bandwidth judges; the driver's copy where the
// driver cannot load the kernel.
json DeviceCopy(GpuRuntime& runtime, int ordinal) {
  Result<std::shared_ptr<DeviceContext>> context = runtime.Context(ordinal);
  if (!context.ok()) return {{"error", context.status().message()}};
  // At most a quarter of what is free, as gpu.memory_bandwidth takes (a card with little memory).
  size_t bytes = kCopyBytes;
  size_t free_bytes = 0, total = 0;
  if (runtime.driver().api().cuMemGetInfo(&free_bytes, &total) == cuda::kSuccess && free_bytes / 4 < bytes)
    bytes = std::max<size_t>(kMiB, free_bytes / 4 / kMiB * kMiB);
  const CopyPlan plan{bytes, 2, 5};
  const bool kernel = !KernelsUnavailable(runtime.driver()).has_value();
  Result<CopyFigure> figure = kernel ? MeasureSmKernel(**context, SmKernel::Copy, plan, runtime.nvml(), runtime.NvmlDevice(ordinal))
                                     : MeasureDeviceCopy(**context, plan, runtime.nvml(), runtime.NvmlDevice(ordinal));
  if (!figure.ok()) return {{"error", figure.status().message()}};
  json out = CopyFigureJson(*figure);
  out["method"] = kernel ? "sm_copy" : "driver_copy";
  return out;
}

// Each card's NVLink error counters, read before the health window's load and after the copies:
// what grows in between grew under lab_check's own work (health/nvlink_errors.h).
class NvLinkErrorWatch {
 public:
  explicit NvLinkErrorWatch(GpuRuntime& runtime) : runtime_(runtime) {
    if (runtime.nvml() == nullptr) return;
    Result<std::unique_ptr<NvmlHealth>> bound = NvmlHealth::Bind(*runtime.nvml());
    if (bound.ok()) health_ = std::move(bound).value();
    for (int i = 0; i < runtime.device_count(); ++i) before_.push_back(Read(i));
  }
  json Growth(int ordinal) const {
    if (ordinal >= static_cast<int>(before_.size())) return {{"na", "NVML did not load"}};
    return health::NvLinkErrorGrowth(before_[ordinal], Read(ordinal));
  }

 private:
  json Read(int ordinal) const {
    if (!health_ || runtime_.NvmlDevice(ordinal) == nullptr) return {{"na", "no NVML health functions or no NVML handle"}};
    return health::ReadNvLinkErrorCounters(runtime_.nvml()->api(), health_->api(), runtime_.NvmlDevice(ordinal));
  }
  GpuRuntime& runtime_;
  std::unique_ptr<NvmlHealth> health_;
  std::vector<json> before_;
};

// The power limits in force while the matmul ran, as the health window read them moments before:
// node-check judges a card capped on purpose against a matmul band lowered for its cap
// (node_check/findings/perf_findings.cpp), and the band is judged per matmul figure.
void AttachPowerLimits(const json& health, json& matmul) {
  for (const json& g : health.value("gpus", json::array())) {
    const int index = g.value("index", -1);
    if (index < 0 || index >= static_cast<int>(matmul.size())) continue;
    const json facts = g.value("facts", json::object());
    for (const char* key : {"power_limit_w", "power_default_limit_w"})
      if (facts.contains(key) && facts[key].is_number()) matmul[index][key] = facts[key];
  }
}

// The memory test on every card at once, when asked: its log goes to --memtest-log; what fails
// to start says so there too (node_check/findings/memtest_findings.cpp reads it).
Status MemtestEveryCard(GpuRuntime& runtime, const JobArgs& args) {
  const std::string seconds = args.Option("memtest-seconds"), path = args.Option("memtest-log");
  if (seconds.empty() || path.empty()) return Status::Ok();
  Result<std::unique_ptr<burn::TimelineWriter>> out = burn::TimelineWriter::Open(path);
  if (!out.ok()) return out.status();
  std::unique_ptr<NvmlHealth> health;
  if (runtime.nvml() != nullptr) {
    Result<std::unique_ptr<NvmlHealth>> bound = NvmlHealth::Bind(*runtime.nvml());
    if (bound.ok()) health = std::move(bound).value();
  }
  memtest::RunLimits limits;
  limits.device_seconds = std::stod(seconds);
  const MemtestCardSetup setup{runtime,
                               {runtime.nvml() != nullptr ? &runtime.nvml()->api() : nullptr, health ? &health->api() : nullptr},
                               **out, memtest::MemoryRequest{}, limits, 0};
  std::vector<int> cards;
  for (int i = 0; i < runtime.device_count(); ++i) cards.push_back(i);
  WriteCardNames(runtime, **out, cards);
  std::vector<Result<bool>> done = RunOnEveryDevice<bool>(runtime.device_count(), [&](int i, const std::function<void()>& ready) {
    Status status = TestCardMemory(setup, i, ready);
    return status.ok() ? Result<bool>(true) : Result<bool>(status);
  });
  for (int i = 0; i < runtime.device_count(); ++i)
    if (!done[i].ok()) (*out)->Write({{"gpu", i}, {"error", done[i].status().message()}});
  (*out)->Write({{"done", true}});
  return Status::Ok();
}

}  // namespace

Result<json> NodeCheckJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  Stopwatch clock;
  json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  json timings = {{"driver_s", clock.Lap()}};

  json out = OkEnvelope();
  out["inventory"] = InventoryJobOn(*runtime, args);
  for (int i = 0; i < runtime->device_count(); ++i) out["inventory"]["gpus"][i]["nvlink"] = NvLinkJson(*runtime, i);
  timings["inventory_s"] = clock.Lap();

  const NvLinkErrorWatch nvlink_errors(*runtime);
  JobArgs health_args = args;
  health_args.quick = true;  // the 500 ms load window
  out["health"] = HealthJobOn(*runtime, health_args);
  timings["health_s"] = clock.Lap();

  MatmulInputCache inputs(0xC0FFEE);
  json matmul = json::array(), copy = json::array();
  json matmul_s = json::array(), copy_s = json::array();
  for (int i = 0; i < runtime->device_count(); ++i) {
    matmul.push_back(Matmul(*runtime, i, inputs));
    matmul.back()["index"] = i;
    matmul_s.push_back(clock.Lap());
  }
  for (int i = 0; i < runtime->device_count(); ++i) {
    copy.push_back(DeviceCopy(*runtime, i));
    copy.back()["index"] = i;
    copy_s.push_back(clock.Lap());
  }
  for (int i = 0; i < runtime->device_count(); ++i) out["inventory"]["gpus"][i]["nvlink_errors"] = nvlink_errors.Growth(i);
  AttachPowerLimits(out["health"], matmul);
  out["matmul"] = matmul;
  out["copy"] = copy;
  timings["matmul_per_gpu_s"] = matmul_s;
  timings["copy_per_gpu_s"] = copy_s;
  if (Status memtest = MemtestEveryCard(*runtime, args); !memtest.ok()) out["memtest_error"] = memtest.message();
  if (!args.Option("memtest-seconds").empty()) timings["memtest_s"] = clock.Lap();
  out["timings_s"] = timings;
  out["libraries"] = runtime->LibrariesJson();
  return out;
}

}  // namespace labcheck::gpu

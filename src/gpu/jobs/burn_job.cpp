// Child job "gpu-burn": every selected GPU runs the BF16 cuBLASLt GEMM back to back for
// `--seconds` of device time. Time is CUDA-event time, summed call by call: an interval ends when
// the calls in it add up to `--interval` seconds, and the run ends when the intervals add up to
// `--seconds`. So "2 minutes" is two minutes of GPU work, and on the simulated machine of the
// tests (whose events report modelled time) a two-minute burn takes seconds. After each interval:
// one NVML sample; every `kCheckEvery` intervals and at the end: the spot check of the product.
// Everything goes to the `--timeline` file as it happens (burn/burn_timeline.h). With
// `--memtest-log FILE`, each card also runs the memory test (gpu/memtest/) on the memory the matmul
// left, on its own stream beside the load until the burn ends, where heat brings out marginal
// cells; its lines go to that file (memtest/memtest_log.h).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <sstream>
#include <thread>

#include "gpu/bench/concurrent.h"
#include "gpu/bench/matmul_bench.h"
#include "gpu/burn/burn_timeline.h"
#include "gpu/health/xid_watch.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/card_selection.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/memtest_card.h"
#include "gpu/nvidia/nvml_health_library.h"

namespace labcheck::gpu {

namespace {

using nlohmann::json;

constexpr int kCheckEvery = 10;

struct BurnPlan {
  double seconds = 120;
  double interval_s = 1;
};

// The memory test beside the load: started once the matmul is set up (it takes what memory is
// left), stopped when the burn's time is done.
class MemtestBeside {
 public:
  MemtestBeside(const MemtestCardSetup* setup, int ordinal) {
    if (setup == nullptr) return;
    thread_ = std::thread([this, setup, ordinal] {
      Status status = TestCardMemory(*setup, ordinal, {}, [this] { return stop_.load(); });
      if (!status.ok()) setup->out.Write({{"gpu", ordinal}, {"error", status.message()}});
    });
  }
  ~MemtestBeside() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Result<int> BurnOne(GpuRuntime& runtime, const CublasLt& lt, const NvmlHealth* health, int ordinal, const BurnPlan& plan,
                    MatmulInputCache& inputs, burn::TimelineWriter& out, const std::function<void()>& ready,
                    const MemtestCardSetup* memtest = nullptr) {
  Result<std::shared_ptr<DeviceContext>> context = DeviceContext::Open(runtime.driver(), ordinal);
  if (!context.ok()) return context.status();
  MatmulPlan matmul;
  Result<std::unique_ptr<MatmulBench>> bench =
      MatmulBench::Prepare(lt, **context, MatmulPrecision::BF16, matmul, inputs);
  if (!bench.ok()) return bench.status();
  const nvml::nvmlDevice_t device = runtime.NvmlDevice(ordinal);
  const nvml::NvmlApi* base = runtime.nvml() != nullptr ? &runtime.nvml()->api() : nullptr;
  const nvml::NvmlHealthApi* fan = health != nullptr ? &health->api() : nullptr;
  // The matmul check's warm-up first, so that the first interval shows the card, not its clocks
  // coming up (the verdicts compare the first window with the last); its settled call sizes the
  // batches (a batch is about a tenth of an interval).
  Result<MatmulWarmUp> warm = (*bench)->WarmUp();
  if (!warm.ok()) return warm.status();
  double per_call_ms = std::max(warm->settled_call_ms, 1e-3);
  ready();
  const MemtestBeside beside(memtest, ordinal);

  const double interval_ms = plan.interval_s * 1000;
  double device_ms = 0;
  int intervals = 0;
  auto spot_check = [&](double t_s) -> Status {
    Result<SpotCheck> check = (*bench)->CheckLast(0x5EED ^ static_cast<uint64_t>(ordinal * 131 + intervals));
    if (!check.ok()) return check.status();
    out.Write({{"gpu", ordinal},
               {"check", {{"t_s", t_s}, {"ok", check->ok()}, {"samples", check->samples}, {"failures", check->failures}}}});
    return Status::Ok();
  };
  while (device_ms < plan.seconds * 1000 - 1e-6) {
    double slice_ms = 0;
    long long calls = 0;
    const double wanted_ms = std::min(interval_ms, plan.seconds * 1000 - device_ms);
    while (slice_ms < wanted_ms) {
      const int batch = std::clamp(static_cast<int>(std::ceil((wanted_ms - slice_ms) / per_call_ms / 4)), 1, 2000);
      Result<double> ms = (*bench)->RunCalls(batch);
      if (!ms.ok()) return ms.status();
      slice_ms += *ms;
      calls += batch;
      per_call_ms = std::max(*ms / batch, 1e-3);
    }
    device_ms += slice_ms;
    ++intervals;
    json sample = burn::ReadNvmlSample(base, fan, device);
    sample["t_s"] = device_ms / 1000;
    sample["tflops"] = (*bench)->flops_per_call() * static_cast<double>(calls) / (slice_ms * 1e-3) / 1e12;
    out.Write({{"gpu", ordinal}, {"sample", sample}});
    if (intervals % kCheckEvery == 0) {
      Status checked = spot_check(device_ms / 1000);
      if (!checked.ok()) return checked;
    }
  }
  if (intervals % kCheckEvery != 0) {
    Status checked = spot_check(device_ms / 1000);
    if (!checked.ok()) return checked;
  }
  return intervals;
}

// --memtest-log FILE: the memory test beside the load on every card, into its own log; null
// without the option. Its time is the burn's: it runs until the load stops.
Result<std::unique_ptr<MemtestCardSetup>> MemtestBesideSetup(GpuRuntime& runtime, const JobArgs& args, const NvmlHealth* health,
                                                             const std::vector<int>& selected,
                                                             std::unique_ptr<burn::TimelineWriter>& out) {
  const std::string path = args.Option("memtest-log");
  if (path.empty()) return std::unique_ptr<MemtestCardSetup>();
  Result<std::unique_ptr<burn::TimelineWriter>> opened = burn::TimelineWriter::Open(path);
  if (!opened.ok()) return opened.status();
  out = std::move(opened).value();
  WriteCardNames(runtime, *out, selected);
  memtest::RunLimits limits;
  limits.device_seconds = 1e9;  // until stopped
  const health::NvmlTables tables{runtime.nvml() != nullptr ? &runtime.nvml()->api() : nullptr,
                                  health != nullptr ? &health->api() : nullptr};
  return std::unique_ptr<MemtestCardSetup>(new MemtestCardSetup{runtime, tables, *out, MemoryRequestOf(args), limits, 0});
}

}  // namespace

Result<json> BurnJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  Result<const CublasLt*> lt = runtime->cublaslt();
  if (!lt.ok()) {
    json skip = SkipEnvelope(T("нет подходящей cuBLASLt: нагрузочный тест не запустить", "no usable cuBLASLt: the burn test cannot run"),
                             T("pip install torch (его колёса приносят cuBLAS)", "pip install torch (its wheels bring cuBLAS)"),
                             lt.status().message());
    skip["libraries"] = runtime->LibrariesJson();
    return skip;
  }
  BurnPlan plan;
  plan.seconds = std::stod(args.Option("seconds", "120"));
  plan.interval_s = std::stod(args.Option("interval", "1"));
  json refusal;
  const std::optional<std::vector<int>> cards = SelectCards(args.Option("gpus"), runtime->device_count(), &refusal);
  if (!cards) return refusal;
  const std::vector<int>& selected = *cards;
  Result<std::unique_ptr<burn::TimelineWriter>> out = burn::TimelineWriter::Open(args.Option("timeline", "/dev/null"));
  if (!out.ok()) return out.status();
  const std::unique_ptr<NvmlHealth> health = HealthReaderIfAny(*runtime);
  std::vector<nvml::nvmlDevice_t> devices;
  for (int i : selected) {
    devices.push_back(runtime->NvmlDevice(i));
    char name[nvml::kDeviceNameBufferSize] = {};
    std::string shown;
    if (devices.back() != nullptr && runtime->nvml()->api().nvmlDeviceGetName != nullptr &&
        runtime->nvml()->api().nvmlDeviceGetName(devices.back(), name, sizeof name) == nvml::kSuccess)
      shown = name;
    (*out)->Write({{"gpu", i}, {"name", shown}, {"pci_bus_id", runtime->PciBusId(i)}});
  }
  std::unique_ptr<burn::TimelineWriter> memtest_out;
  Result<std::unique_ptr<MemtestCardSetup>> memtest = MemtestBesideSetup(*runtime, args, health.get(), selected, memtest_out);
  if (!memtest.ok()) return memtest.status();
  static const nvml::NvmlHealthApi kNone{};
  health::XidWatch xids(health ? health->api() : kNone, devices);
  MatmulInputCache inputs(0xB0B);  // one set of inputs for every card: the first thread makes it
  std::vector<Result<int>> done = RunOnEveryDevice<int>(
      static_cast<int>(selected.size()), [&](int slot, const std::function<void()>& ready) {
        return BurnOne(*runtime, **lt, health.get(), selected[slot], plan, inputs, **out, ready, memtest->get());
      });
  if (memtest_out) memtest_out->Write({{"done", true}});
  std::vector<json> seen = xids.Stop();
  json result = OkEnvelope();
  result["gpus"] = json::array();
  for (size_t slot = 0; slot < selected.size(); ++slot) {
    if (!done[slot].ok()) (*out)->Write({{"gpu", selected[slot]}, {"error", done[slot].status().message()}});
    if (seen[slot].is_array()) (*out)->Write({{"gpu", selected[slot]}, {"xids", seen[slot]}});
    result["gpus"].push_back({{"index", selected[slot]}, {"intervals", done[slot].ok() ? *done[slot] : 0}});
  }
  (*out)->Write({{"done", true}});
  result["libraries"] = runtime->LibrariesJson();
  return result;
}

}  // namespace labcheck::gpu

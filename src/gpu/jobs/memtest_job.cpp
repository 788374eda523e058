// Child job "gpu-memtest": the memory test (gpu/memtest/) on every selected GPU at once, one thread
// per card. Each card: the ECC counters, lab_check's SM copy as the speed to compare with, the
// memory allocated (memtest_memory.h), then pattern after pattern until the time or the passes are
// done, the bit fade if asked, the ECC counters again. Everything goes to the `--timeline` file as
// it happens (one JSON object per line, as the burn test's: memtest/memtest_log.h), so Ctrl-C, a
// timeout or a crash keeps every pattern that finished.
//
// Arguments (besides JobArgs' own): --gpus LIST, --seconds S (device time for the passes) or
// --passes N, --fade-s W (run the bit fade, W s per wait), --size BYTES or --fraction F,
// --reserve-mib N, --self-test 1, --chunks N, --seed N, --sm-copy-mib N (0: no SM copy figure),
// --timeline FILE.
#include <sstream>

#include "gpu/bench/concurrent.h"
#include "gpu/bench/kernel_module.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/card_selection.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/memtest_card.h"
#include "gpu/nvidia/nvml_health_library.h"

namespace labcheck::gpu {

namespace {

using nlohmann::json;

}  // namespace

Result<json> MemtestJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  if (std::optional<std::string> missing = KernelsUnavailable(runtime->driver())) {
    json skip = SkipEnvelope(T("драйвер не загружает PTX-ядра: тест памяти не запустить", "the driver cannot load PTX kernels: the memory test cannot run"),
                             T("обновите драйвер NVIDIA", "update the NVIDIA driver"), *missing);
    skip["libraries"] = runtime->LibrariesJson();
    return skip;
  }
  json refusal;
  const std::optional<std::vector<int>> selected = SelectCards(args.Option("gpus"), runtime->device_count(), &refusal);
  if (!selected) return refusal;
  Result<std::unique_ptr<burn::TimelineWriter>> out = burn::TimelineWriter::Open(args.Option("timeline", "/dev/null"));
  if (!out.ok()) return out.status();
  const std::unique_ptr<NvmlHealth> health = HealthReaderIfAny(*runtime);
  const MemtestCardSetup setup{*runtime,
                               {runtime->nvml() != nullptr ? &runtime->nvml()->api() : nullptr, health ? &health->api() : nullptr},
                               **out,
                               MemoryRequestOf(args),
                               RunLimitsOf(args),
                               static_cast<size_t>(std::stoull(args.Option("sm-copy-mib", "256")))};
  WriteCardNames(*runtime, **out, *selected);
  std::vector<Result<bool>> done = RunOnEveryDevice<bool>(static_cast<int>(selected->size()), [&](int slot, const std::function<void()>& ready) {
    Status status = TestCardMemory(setup, (*selected)[slot], ready);
    if (!status.ok()) return Result<bool>(status);
    return Result<bool>(true);
  });
  for (size_t slot = 0; slot < selected->size(); ++slot)
    if (!done[slot].ok()) (*out)->Write({{"gpu", (*selected)[slot]}, {"error", done[slot].status().message()}});
  (*out)->Write({{"done", true}});
  json result = OkEnvelope();
  result["libraries"] = runtime->LibrariesJson();
  return result;
}

}  // namespace labcheck::gpu

#include "gpu/jobs/memtest_card.h"

#include <unistd.h>

#include <algorithm>

#include "gpu/bench/sm_copy_bench.h"

namespace labcheck::gpu {

namespace {

using nlohmann::json;

// The ECC mode and counters and the row remapping, as gpu.health reads them (fields it cannot
// read say so: health_facts.h).
json EccSnapshot(const health::NvmlTables& tables, nvml::nvmlDevice_t device) {
  if (device == nullptr || tables.base == nullptr) return json::object();
  const json facts = health::ReadIdleFacts(tables, device, static_cast<unsigned>(getpid()));
  json out = json::object();
  for (const char* key : {"ecc_mode", "ecc_corrected_volatile", "ecc_uncorrected_volatile", "remapped_rows",
                          "retired_pages_pending"})
    if (facts.contains(key)) out[key] = facts[key];
  return out;
}

}  // namespace

memtest::MemoryRequest MemoryRequestOf(const JobArgs& args) {
  memtest::MemoryRequest request;
  if (const std::string size = args.Option("size"); !size.empty()) request.bytes = std::stoull(size);
  if (const std::string fraction = args.Option("fraction"); !fraction.empty()) request.fraction = std::stod(fraction);
  if (const std::string reserve = args.Option("reserve-mib"); !reserve.empty()) request.reserve_bytes = std::stoull(reserve) << 20;
  request.chunks = std::max(1, std::atoi(args.Option("chunks", "1").c_str()));
  return request;
}

memtest::RunLimits RunLimitsOf(const JobArgs& args) {
  memtest::RunLimits limits;
  if (const std::string s = args.Option("seconds"); !s.empty()) limits.device_seconds = std::stod(s);
  if (const std::string p = args.Option("passes"); !p.empty()) limits.passes = std::atoi(p.c_str());
  if (const std::string w = args.Option("fade-s"); !w.empty()) {
    limits.bit_fade = true;
    limits.fade_wait_s = std::stod(w);
  }
  limits.self_test = args.Option("self-test") == "1";
  if (const std::string seed = args.Option("seed"); !seed.empty()) limits.seed = std::stoull(seed);
  return limits;
}

void WriteCardNames(GpuRuntime& runtime, burn::TimelineWriter& out, const std::vector<int>& ordinals) {
  for (int i : ordinals) {
    char name[nvml::kDeviceNameBufferSize] = {};
    const nvml::nvmlDevice_t device = runtime.NvmlDevice(i);
    std::string shown;
    if (device != nullptr && runtime.nvml()->api().nvmlDeviceGetName != nullptr &&
        runtime.nvml()->api().nvmlDeviceGetName(device, name, sizeof name) == nvml::kSuccess)
      shown = name;
    out.Write({{"gpu", i}, {"name", shown}, {"pci_bus_id", runtime.PciBusId(i)}});
  }
}

Status TestCardMemory(const MemtestCardSetup& setup, int ordinal, const std::function<void()>& ready, const memtest::StopFn& stop) {
  auto write = [&](const char* key, json value) { setup.out.Write({{"gpu", ordinal}, {key, std::move(value)}}); };
  Result<std::shared_ptr<DeviceContext>> context = setup.runtime.Context(ordinal);
  if (!context.ok()) return context.status();
  const nvml::nvmlDevice_t device = setup.runtime.NvmlDevice(ordinal);
  const json ecc_before = EccSnapshot(setup.tables, device);
  if (setup.sm_copy_mib > 0) {
    CopyPlan plan{setup.sm_copy_mib << 20, 2, 5};
    Result<CopyFigure> copy = MeasureSmKernel(**context, SmKernel::Copy, plan, nullptr, nullptr);
    write("sm_copy", copy.ok() ? json{{"gbps", copy->gbps}, {"bytes", plan.bytes}} : json{{"error", copy.status().message()}});
  }
  Result<memtest::TestMemory> memory = memtest::AllocateTestMemory(setup.runtime.driver(), setup.request);
  if (!memory.ok()) return memory.status();
  write("memory", memtest::MemoryJson(*memory));
  if (ready) ready();  // every card starts its patterns together: they share the power supply and the host
  const memtest::CardOutcome outcome = memtest::RunMemtest(
      **context, *memory, setup.limits, [&](const memtest::PatternRun& run) { write("run", memtest::PatternRunJson(run, memory->ranges)); },
      stop);
  json end = {{"passes", outcome.passes}, {"device_seconds", outcome.device_seconds}, {"ecc_before", ecc_before},
              {"context_lost", outcome.context_lost}};
  // After a lost context NVML still answers: the uncorrected count is what says why.
  end["ecc_after"] = EccSnapshot(setup.tables, device);
  if (!outcome.error.empty()) end["error"] = outcome.error;
  write("end", end);
  return Status::Ok();
}

}  // namespace labcheck::gpu

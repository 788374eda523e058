// The burn test's verdicts from its timeline (a pure function, so tests drive it with made-up
// series): a wrong product is a FAIL; throughput at the end below the start by more than
// kDropWarn is a WARN naming the clock event reason that held at the end (thermal, power cap, HW
// slowdown; bench/clock_event_hold.h, so a one-sample blip names nothing); a card slower than the best at the start by more than kSlowerWarn is a WARN naming that card; and
// when heat is the cause, the `sudo nvidia-smi -pl <W>` hint with a wattage from the samples.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/check_result.h"
#include "gpu/burn/burn_timeline.h"

namespace labcheck::gpu::burn {

inline constexpr double kDropWarn = 0.10;    // end vs start of one card
inline constexpr double kSlowerWarn = 0.10;  // a card's first window vs the best card's
inline constexpr double kPowerCapSuggest = 0.85;  // -pl at 85 % of the draw at full speed (seed: «потеря скорости обычно небольшая»)

struct GpuVerdict {
  int index = 0;
  std::string pci_bus_id;  // for the nvidia-smi hints: -i takes the bus id, not the CUDA ordinal
  std::optional<double> first_tflops, last_tflops, mean_tflops;
  double window_s = 0;  // length of the first and last windows compared
  std::optional<double> drop;  // 1 - last/first
  std::string cause;           // "thermal", "power_cap", "hw_slowdown", "" (no reason reported)
  std::optional<double> max_temperature_c, max_power_w;
  std::optional<int> suggested_power_limit_w;
  int checks = 0, wrong = 0;
};

// The first and last window: the last minute for runs of 3 minutes or more, else a third.
double ComparisonWindow(double duration_s);

GpuVerdict JudgeGpu(const GpuTimeline& gpu);

// The gpu.burn result: verdicts, the summary table, and data {"interval_s", "gpus": [{index, name,
// samples}]} (the contract the HTML report draws) plus "verdicts", "interrupted", "duration_s".
CheckResult JudgeBurn(const Timeline& timeline, bool interrupted);

}  // namespace labcheck::gpu::burn

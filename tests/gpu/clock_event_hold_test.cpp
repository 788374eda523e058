// The rule for when a clock event reason counts (gpu/bench/clock_event_hold.h), and the NVML
// sampler and the burn verdicts that apply it: a reason read in one sample is a transition, a
// reason read throughout is a limit.
#include "gpu/bench/clock_event_hold.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>

#include "gpu/bench/nvml_sampler.h"
#include "gpu/burn/burn_verdicts.h"

namespace labcheck::gpu {
namespace {

using nlohmann::json;

TEST(ClockEventHold, OneReadingNeverHolds) {
  EXPECT_FALSE(ReasonHolds(1, 1));
  EXPECT_FALSE(ReasonHolds(1, 20));
  EXPECT_FALSE(ReasonHolds(0, 0));
  EXPECT_TRUE(ReasonHolds(2, 2));
  EXPECT_TRUE(ReasonHolds(5, 20));   // a quarter
  EXPECT_FALSE(ReasonHolds(4, 20));  // a fifth: transitions at the start and end of a long series
}

TEST(ClockEventHold, TallySeparatesLimitsFromBlips) {
  ReasonTally tally;
  for (int i = 0; i < 12; ++i)
    tally.Add(nvml::kClockEventSwPowerCap | (i == 0 ? nvml::kClockEventHwSlowdown : 0));
  EXPECT_EQ(tally.samples, 12);
  EXPECT_EQ(tally.Held(), nvml::kClockEventSwPowerCap);
  EXPECT_EQ(tally.Seen(), nvml::kClockEventSwPowerCap | nvml::kClockEventHwSlowdown);
}

// NVML whose HW-slowdown bit is set in the first reading only (a P-state change as the work
// starts), and the SW power cap in every reading.
std::atomic<int> g_reads{0};
nvml::nvmlReturn_t BlipThenCap(nvml::nvmlDevice_t, unsigned long long* reasons) {
  *reasons = nvml::kClockEventSwPowerCap | (g_reads++ == 0 ? nvml::kClockEventHwSlowdown : 0);
  return nvml::kSuccess;
}

TEST(NvmlSampler, ReportsOnlyTheReasonsThatHeld) {
  nvml::NvmlApi api;
  api.nvmlDeviceGetCurrentClocksEventReasons = BlipThenCap;
  std::unique_ptr<Nvml> nvml = Nvml::FromApi(api);
  g_reads = 0;
  NvmlSampler sampler(nvml.get(), reinterpret_cast<nvml::nvmlDevice_t>(0x1), 60000);
  sampler.SetBusy(true);
  for (int i = 0; i < 8; ++i) sampler.SampleNow();
  NvmlSamples samples = sampler.Stop();
  EXPECT_EQ(samples.count, 8);
  EXPECT_EQ(samples.ReasonNames(), std::vector<std::string>({"power_cap"}));
  EXPECT_EQ(samples.TransientReasonNames(), std::vector<std::string>({"hw_slowdown"}));
}

burn::GpuTimeline Timeline(int seconds, const std::function<json(int)>& reasons_at) {
  burn::GpuTimeline g;
  for (int t = 1; t <= seconds; ++t)
    g.samples.push_back({{"t_s", t}, {"tflops", t > seconds / 2 ? 60.0 : 75.0}, {"power_w", 290}, {"temperature_c", 70},
                         {"clock_event_reasons", reasons_at(t)}});
  return g;
}

TEST(BurnVerdicts, ABlipInTheLastWindowIsNoCause) {
  // 90 s, 20 % slower at the end; hw_slowdown read once near the end, nothing else.
  const burn::GpuVerdict blip = burn::JudgeGpu(Timeline(90, [](int t) { return t == 85 ? json({"hw_slowdown"}) : json::array(); }));
  EXPECT_EQ(blip.cause, "");
  // Thermal through the last window: the cause.
  const burn::GpuVerdict hot = burn::JudgeGpu(Timeline(90, [](int t) {
    return t == 85 ? json({"hw_slowdown", "thermal"}) : t > 60 ? json({"thermal", "hw_thermal"}) : json::array();
  }));
  EXPECT_EQ(hot.cause, "thermal");
}

}  // namespace
}  // namespace labcheck::gpu

// The burn verdicts on made-up timelines: steady, thermal slowdown after 30 s, power cap, one card
// 10 % slower, a wrong product, an interrupted run; and the timeline file read back after a kill.
#include <gtest/gtest.h>

#include <functional>

#include "gpu/burn/burn_verdicts.h"

namespace labcheck::gpu::burn {
namespace {

using nlohmann::json;

// One GPU's samples for `seconds`, one per second; `shape(t)` gives tflops, power, temperature and
// the reasons at t.
struct At {
  double tflops;
  double power_w;
  int temperature_c;
  std::vector<std::string> reasons;
};

GpuTimeline Series(int index, int seconds, const std::function<At(int)>& shape) {
  GpuTimeline g;
  g.index = index;
  g.name = "NVIDIA GeForce RTX 4090";
  for (int t = 1; t <= seconds; ++t) {
    At at = shape(t);
    g.samples.push_back({{"t_s", double(t)}, {"tflops", at.tflops}, {"sm_clock_mhz", 2505}, {"mem_clock_mhz", 10501},
                         {"power_w", at.power_w}, {"temperature_c", at.temperature_c}, {"fan_percent", 60},
                         {"clock_event_reasons", at.reasons}});
  }
  g.checks.push_back({double(seconds), true, 16, 0});
  return g;
}

At Steady(int) { return {160, 430, 65, {"power_cap"}}; }

Timeline Of(std::vector<GpuTimeline> gpus) {
  Timeline t;
  t.gpus = std::move(gpus);
  t.complete = true;
  return t;
}

TEST(BurnVerdicts, SteadyCardsPass) {
  CheckResult r = JudgeBurn(Of({Series(0, 120, Steady), Series(1, 120, Steady)}), false);
  EXPECT_EQ(r.outcome, Outcome::Pass) << r.reason.en;
  EXPECT_EQ(r.id, "gpu.burn");
  ASSERT_NE(r.Find("gpu.burn_total_tflops"), nullptr);
  EXPECT_NEAR(r.Find("gpu.burn_total_tflops")->value, 320, 1e-6);
}

TEST(BurnVerdicts, ThermalSlowdownAfter30sWarnsNamesTheCauseAndSuggestsAPowerLimit) {
  auto hot = [](int t) -> At {
    if (t <= 30) return {160, 440, 70 + t / 3, {}};
    return {120, 400, 88, {"thermal"}};
  };
  GpuTimeline card = Series(0, 120, hot);
  card.pci_bus_id = "0000:81:00.0";
  CheckResult r = JudgeBurn(Of({card}), false);
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("overheating (thermal)"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("20% slower"), std::string::npos) << r.reason.en;
  // 85 % of the 440 W it drew at full speed, to 5 W: 375.
  // nvidia-smi -i takes the card's bus id: its own index counts in bus order, not CUDA's.
  EXPECT_NE(r.hint.en.find("sudo nvidia-smi -i 00000000:81:00.0 -pl 375"), std::string::npos) << r.hint.en;
  EXPECT_EQ(r.data["verdicts"][0]["cause"], "thermal");
  EXPECT_EQ(r.data["verdicts"][0]["suggested_power_limit_w"], 375);
}

TEST(BurnVerdicts, ShortRunsCompareThirds) {
  EXPECT_DOUBLE_EQ(ComparisonWindow(20), 20.0 / 3);
  EXPECT_DOUBLE_EQ(ComparisonWindow(120), 40);
  EXPECT_DOUBLE_EQ(ComparisonWindow(600), 60);
  auto hot = [](int t) -> At { return t <= 10 ? At{100, 300, 70, {}} : At{80, 280, 86, {"hw_slowdown"}}; };
  CheckResult r = JudgeBurn(Of({Series(0, 20, hot)}), false);
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("hardware slowdown"), std::string::npos) << r.reason.en;
}

TEST(BurnVerdicts, PowerCapDropNamesThePowerLimit) {
  auto capped = [](int t) -> At { return t <= 40 ? At{160, 450, 70, {}} : At{130, 350, 72, {"power_cap"}}; };
  CheckResult r = JudgeBurn(Of({Series(0, 120, capped)}), false);
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("power cap"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.hint.en.find("nvidia-smi -q -d POWER"), std::string::npos) << r.hint.en;
}

TEST(BurnVerdicts, ACardTenPercentSlowerThanTheBestIsNamed) {
  auto slower = [](int) -> At { return {142, 430, 65, {"power_cap"}}; };  // 11 % below 160
  CheckResult r = JudgeBurn(Of({Series(0, 60, Steady), Series(1, 60, slower), Series(2, 60, Steady)}), false);
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("GPU1 (NVIDIA GeForce RTX 4090) is 11% slower than the best card"), std::string::npos) << r.reason.en;
  EXPECT_EQ(r.reason.en.find("GPU0"), std::string::npos);
  auto close = [](int) -> At { return {150, 430, 65, {}}; };  // 6 %: within the spread of one model
  EXPECT_EQ(JudgeBurn(Of({Series(0, 60, Steady), Series(1, 60, close)}), false).outcome, Outcome::Pass);
}

TEST(BurnVerdicts, AWrongProductUnderLoadFails) {
  GpuTimeline bad = Series(1, 60, Steady);
  bad.checks.push_back({60, false, 16, 5});
  CheckResult r = JudgeBurn(Of({Series(0, 60, Steady), bad}), false);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("GPU1 computes wrong results under load (1 of 2 checks)"), std::string::npos) << r.reason.en;
}

TEST(BurnVerdicts, DataFollowsThePlotContract) {
  CheckResult r = JudgeBurn(Of({Series(0, 3, Steady)}), false);
  const json& d = r.data;
  EXPECT_EQ(d["interval_s"], 1.0);
  ASSERT_EQ(d["gpus"].size(), 1u);
  EXPECT_EQ(d["gpus"][0]["index"], 0);
  EXPECT_EQ(d["gpus"][0]["name"], "NVIDIA GeForce RTX 4090");
  ASSERT_EQ(d["gpus"][0]["samples"].size(), 3u);
  const json& s = d["gpus"][0]["samples"][0];
  for (const char* key : {"t_s", "tflops", "sm_clock_mhz", "mem_clock_mhz", "power_w", "temperature_c", "fan_percent", "clock_event_reasons"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_EQ(s["clock_event_reasons"], json({"power_cap"}));
}

TEST(BurnVerdicts, TheTimelineSurvivesAKilledChild) {
  const std::string text =
      "{\"gpu\":0,\"name\":\"NVIDIA H200\"}\n"
      "{\"gpu\":0,\"sample\":{\"t_s\":1.0,\"tflops\":700.5,\"power_w\":null}}\n"
      "{\"gpu\":0,\"sample\":{\"t_s\":2.0,\"tflops\":701.0}}\n"
      "{\"gpu\":0,\"check\":{\"t_s\":2.0,\"ok\":true,\"samples\":16,\"failures\":0}}\n"
      "{\"gpu\":0,\"sample\":{\"t_s\":3.0,\"tfl";  // the kill cut this line
  Timeline t = ReadTimeline(text, 1.0);
  EXPECT_FALSE(t.complete);
  ASSERT_EQ(t.gpus.size(), 1u);
  EXPECT_EQ(t.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(t.gpus[0].samples.size(), 2u);
  EXPECT_EQ(t.gpus[0].checks.size(), 1u);
  CheckResult r = JudgeBurn(t, true);
  EXPECT_EQ(r.data["interrupted"], true);
  EXPECT_EQ(r.data["gpus"][0]["samples"].size(), 2u);
  EXPECT_TRUE(r.data["gpus"][0]["samples"][0]["power_w"].is_null());
}

TEST(BurnVerdicts, NoSamplesIsNotAPass) {
  EXPECT_EQ(JudgeBurn(Timeline{}, false).outcome, Outcome::Fail);
  EXPECT_EQ(JudgeBurn(Timeline{}, true).outcome, Outcome::NotRun);
}

}  // namespace
}  // namespace labcheck::gpu::burn

// The spread of a figure: its numbers, its trust word, and that every writer shows them.
#include <gtest/gtest.h>

#include "core/spread.h"
#include "report/format.h"
#include "report/json_reader.h"
#include "report/json_writer.h"
#include "report/markdown_writer.h"
#include "report/terminal_writer.h"

namespace labcheck {
namespace {

TEST(Spread, OfValuesHasMedianRangeAndSampleCv) {
  Spread s = SpreadOfValues({10, 12, 11, 9, 13});
  EXPECT_EQ(s.repeats, 5);
  EXPECT_DOUBLE_EQ(s.median, 11);
  EXPECT_DOUBLE_EQ(s.min, 9);
  EXPECT_DOUBLE_EQ(s.max, 13);
  ASSERT_TRUE(s.cv.has_value());
  EXPECT_NEAR(*s.cv, 1.5811 / 11, 1e-4);  // sample standard deviation sqrt(2.5) over the mean 11
}

TEST(Spread, OfRateTurnsTheSlowestRepeatIntoTheLowestRate) {
  Spread s = SpreadOfRate(100, 10, 8, 20, 30, 0.05);
  EXPECT_DOUBLE_EQ(s.min, 50);   // 100 × 10 / 20
  EXPECT_DOUBLE_EQ(s.max, 125);  // 100 × 10 / 8
  EXPECT_EQ(s.repeats, 30);
  EXPECT_DOUBLE_EQ(*s.cv, 0.05);
}

TEST(Spread, TrustWordFollowsTheCvTheRepeatsAndTheLoad) {
  EXPECT_EQ(TrustOf(SpreadOfValues({100, 100.5, 99.8, 100.2})), Trust::Stable);
  EXPECT_EQ(TrustOf(SpreadOfValues({100, 105, 95, 102})), Trust::SomeScatter);
  EXPECT_EQ(TrustOf(SpreadOfValues({100, 140, 70, 110})), Trust::Noisy);
  EXPECT_EQ(TrustOf(SpreadOfValues({100, 140, 70, 110}, true)), Trust::NoisyMachineBusy);
  EXPECT_EQ(TrustOf(SpreadOfValues({100, 100.1, 100}, true)), Trust::Stable);  // busy but steady: the figure holds
  EXPECT_EQ(TrustOf(SpreadOfValues({100, 140})), Trust::FewRepeats);
  // Without a CV the range decides: 90–110 around 100 is ±10%, not stable.
  Spread range_only = SpreadOfRate(100, 10, 9.1, 11.1, 20, std::nullopt);
  EXPECT_NE(TrustOf(range_only), Trust::Stable);
  EXPECT_EQ(TrustWord(Trust::NoisyMachineBusy).ru, "шумно: машина занята");
  EXPECT_EQ(TrustWord(Trust::Stable).en, "stable");
}

Report OneFigure(Lang lang) {
  Report r;
  r.lang = lang;
  CheckResult c;
  c.id = "cpu.memory_bandwidth";
  c.section = "cpu";
  c.title = T("Память", "Memory");
  c.outcome = Outcome::Pass;
  Measurement m{"cpu.mem_copy_gbps", T("Копирование", "Copy"), 18.2, "GB/s", Text("bytes")};
  m.spread = SpreadOfValues({18.2, 18.0, 18.4, 18.2, 18.1, 18.3, 18.2, 18.2, 18.1, 18.3});
  c.Add(m);
  r.checks.push_back(c);
  return r;
}

TEST(Spread, EveryWriterShowsIt) {
  const Report ru = OneFigure(Lang::Ru);
  const std::string md = ReportToMarkdown(ru);
  EXPECT_NE(md.find("18.2 GB/s (стабильно)"), std::string::npos) << md;
  EXPECT_NE(md.find("10 повторов: медиана 18.2, 18–18.4 GB/s, CV 0.6%"), std::string::npos) << md;
  const std::string terminal = ReportToTerminal(ru, TerminalStyle{});
  EXPECT_NE(terminal.find("стабильно"), std::string::npos) << terminal;

  const nlohmann::json j = ReportToJson(OneFigure(Lang::En));
  const nlohmann::json& spread = j["checks"][0]["measurements"][0]["spread"];
  EXPECT_EQ(spread["repeats"], 10);
  EXPECT_DOUBLE_EQ(spread["min"].get<double>(), 18.0);
  EXPECT_DOUBLE_EQ(spread["max"].get<double>(), 18.4);
  EXPECT_NEAR(spread["cv"].get<double>(), 0.006, 0.001);
  EXPECT_EQ(spread["trust"], "stable");
  EXPECT_EQ(spread["trust_label"], "stable");
  // …and reading the JSON back keeps it, so a saved report renders the same.
  const Report back = ReportFromJson(j);
  ASSERT_TRUE(back.checks.at(0).measurements.at(0).spread.has_value());
  EXPECT_EQ(back.checks[0].measurements[0].spread->repeats, 10);
  EXPECT_EQ(FormatSpread(back.checks[0].measurements[0]).en, FormatSpread(OneFigure(Lang::En).checks[0].measurements[0]).en);
}

TEST(Spread, RussianPluralOfRepeats) {
  Measurement m{"k", Text("k"), 1, "", Text("")};
  m.spread = SpreadOfValues({1, 1});
  EXPECT_NE(FormatSpread(m).ru.find("2 повтора"), std::string::npos);
  m.spread = SpreadOfValues(std::vector<double>(21, 1.0));
  EXPECT_NE(FormatSpread(m).ru.find("21 повтор:"), std::string::npos);
  EXPECT_EQ(FormatSpread(Measurement{}).ru, "—");
}

}  // namespace
}  // namespace labcheck

// Published measurements of training peaks (tests/calc/published_cases.json, each with its source
// and settings) against what `lab_check vram` predicts for the same settings. Fails when a case
// drifts past its tolerance or the median error past the median tolerance; prints the table that
// docs/calculators.md quotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calc_cli.h"

namespace labcheck::calc {
namespace {

TEST(PublishedCasesTest, PredictionsStayWithinTolerance) {
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  const double tolerance = root.at("tolerance_percent").get<double>();
  const double median_tolerance = root.at("median_tolerance_percent").get<double>();
  ASSERT_GE(root.at("cases").size(), 12u);
  std::vector<double> errors;
  std::string table = "| case | measured GiB | predicted GiB | error |\n| --- | --- | --- | --- |\n";
  for (const nlohmann::json& c : root.at("cases")) {
    std::vector<std::string> args = c.at("args").get<std::vector<std::string>>();
    args.push_back("--json");
    const testing::CliRun run = testing::RunCalc(args, Lang::En);
    ASSERT_EQ(run.exit_code, 0) << c.at("id") << ": " << run.err;
    const nlohmann::json out = nlohmann::json::parse(run.out);
    const double predicted = out.at("memory").at("peak_allocated").at("bytes").get<double>() / (1 << 30);
    const double measured = c.at("measured_gib").get<double>();
    const double error = (predicted / measured - 1) * 100;
    errors.push_back(std::fabs(error));
    table += fmt::format("| {} | {:.1f} | {:.1f} | {:+.1f}% |\n", c.at("id").get<std::string>(), measured, predicted, error);
    EXPECT_LE(std::fabs(error), c.value("tolerance_percent", tolerance)) << c.at("id") << ": measured " << measured << " GiB, predicted " << predicted
                                           << " GiB (" << c.at("source") << ")";
  }
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  table += fmt::format("\nmedian |error| {:.1f}%\n", median);
  std::cout << table;
  EXPECT_LE(median, median_tolerance) << table;
}

TEST(PublishedCasesTest, ServeKvCacheMatchesVllmLogs) {
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  const double tolerance = root.at("serve_tolerance_percent").get<double>();
  ASSERT_GE(root.at("serve_cases").size(), 3u);
  for (const nlohmann::json& c : root.at("serve_cases")) {
    std::vector<std::string> args = c.at("args").get<std::vector<std::string>>();
    args.push_back("--json");
    const testing::CliRun run = testing::RunCalc(args, Lang::En);
    ASSERT_EQ(run.exit_code, 0) << c.at("id") << ": " << run.err;
    const nlohmann::json out = nlohmann::json::parse(run.out);
    const int tp = c.at("tp").get<int>();
    const nlohmann::json& option = out.at("serve").at("options").at(tp - 1);
    const double predicted = option.at("kv_room_per_gpu").at("bytes").get<double>() / (1 << 30);
    const double measured = c.at("measured_gib").get<double>();
    const double error = (predicted / measured - 1) * 100;
    std::cout << fmt::format("| {} | {:.2f} | {:.2f} | {:+.1f}% |\n", c.at("id").get<std::string>(), measured, predicted, error);
    EXPECT_LE(std::fabs(error), c.value("tolerance_percent", tolerance)) << c.at("id") << ": vLLM logged " << measured << " GiB of KV cache, predicted " << predicted;
  }
}

TEST(PublishedCasesTest, EveryCaseNamesItsSourceAndSettings) {
  for (const nlohmann::json& c : testing::LoadCases("published_cases.json").at("cases")) {
    EXPECT_EQ(c.at("source").get<std::string>().rfind("https://", 0), 0u) << c.at("id");
    EXPECT_FALSE(c.at("settings").get<std::string>().empty()) << c.at("id");
    EXPECT_FALSE(c.at("measured").get<std::string>().empty()) << c.at("id");
  }
}

}  // namespace
}  // namespace labcheck::calc

// Published measurements of training peaks (tests/calc/published_cases.json, each with its source
// and settings) against what `lab_check vram` predicts for the same settings. Fails when a case
// drifts past its tolerance or the median error past the median tolerance; prints the table that
// docs/calculators-evidence.md quotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calc/calc_constants.h"
#include "calc_cli.h"

namespace labcheck::calc {
namespace {

// The size of component `id` in `vram --json`'s memory, in GiB (0 when absent).
double ComponentGiB(const nlohmann::json& memory, const std::string& id) {
  for (const nlohmann::json& c : memory.at("components")) {
    if (c.at("id") == id && !c.at("size").is_null()) return c.at("size").at("bytes").get<double>() / (1 << 30);
  }
  return 0;
}

// What lab_check predicts for the figure a source measured (`figure`, max_memory_allocated when the
// case does not name one): the allocator's reserved peak is the
// allocated peak plus the allocator cache (and, with parameter offload, what the copy streams keep:
// FSDP1's shard copies' block, FSDP2's all-gather and reduce-scatter pools); the memory a GPU shows in use adds the CUDA context.
double PredictedFigureGiB(const nlohmann::json& memory, const std::string& figure) {
  const double allocated = memory.at("peak_allocated").at("bytes").get<double>() / (1 << 30);
  if (figure == "max_memory_allocated") return allocated;
  if (figure == "max_memory_reserved") {
    return allocated + ComponentGiB(memory, "allocator_reserve") + ComponentGiB(memory, "offload_copy_cache") +
           ComponentGiB(memory, "fsdp2_stream_pools");
  }
  EXPECT_EQ(figure, "device_memory_used");
  return memory.at("peak_total").at("bytes").get<double>() / (1 << 30);
}

TEST(PublishedCasesTest, PredictionsStayWithinTolerance) {
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  const double tolerance = root.at("tolerance_percent").get<double>();
  const double median_tolerance = root.at("median_tolerance_percent").get<double>();
  ASSERT_GE(root.at("cases").size(), 12u);
  std::vector<double> errors;
  std::string table = "| case | measured GiB | predicted GiB | error |\n| --- | --- | --- | --- |\n";
  for (const nlohmann::json& c : root.at("cases")) {
    const testing::CliRun run = testing::RunCalc(testing::CaseArgs(c), Lang::En);
    ASSERT_EQ(run.exit_code, 0) << c.at("id") << ": " << run.err;
    const nlohmann::json out = nlohmann::json::parse(run.out);
    const double predicted = PredictedFigureGiB(out.at("memory"), c.value("figure", "max_memory_allocated"));
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

bool OffloadsParams(const nlohmann::json& c) {
  const auto args = c.at("args").get<std::vector<std::string>>();
  const auto flag = std::find(args.begin(), args.end(), "--offload");
  return flag != args.end() && flag + 1 != args.end() && (flag + 1)->find("params") != std::string::npos;
}

// Published peaks the model does not reach yet (issue 40: offloaded FSDP runs, and FSDP1 reserved
// figures the allocator cache does not cover). The test keeps them running and printed with their
// gap, and fails once a prediction is no longer below the measurement, so the case moves to `cases`
// with the tolerance every other case has.
TEST(PublishedCasesTest, OpenCasesAreRecordedWithTheirGap) {
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  const nlohmann::json& open = root.at("open_cases").at("cases");
  ASSERT_GE(open.size(), 1u);
  for (const nlohmann::json& c : open) {
    const testing::CliRun run = testing::RunCalc(testing::CaseArgs(c), Lang::En);
    ASSERT_EQ(run.exit_code, 0) << c.at("id") << ": " << run.err;
    const nlohmann::json memory = nlohmann::json::parse(run.out).at("memory");
    const double predicted = PredictedFigureGiB(memory, c.at("figure").get<std::string>());
    const double measured = c.at("measured_gib").get<double>();
    std::cout << fmt::format("| {} | {} | {:.2f} | {:.2f} | {:+.1f}% |\n", c.at("id").get<std::string>(), c.at("figure").get<std::string>(),
                             measured, predicted, (predicted / measured - 1) * 100);
    EXPECT_LT(predicted, measured) << c.at("id") << " is reached now: move it to `cases`";
    if (OffloadsParams(c)) {
      EXPECT_GT(memory.at("host_ram").at("offloaded").at("bytes").get<double>(), 0) << c.at("id") << ": offload prints the host RAM it needs";
    }
  }
}

// Issue 40's bar for runs with the parameters offloaded: within the tolerance, and never under 0.90
// of the measurement (an estimate below what a run took ends in an OOM). The issue asks for four
// such cases; six pass (torchtune's 70B, fsdp_qlora's 70B on two machines, its 7B QLoRA and its two
// Mistral 7B runs), and the open ones below 0.90 are in `open_cases` (docs/calculators-evidence.md says why).
// This holds the six and fails if one of them slips.
TEST(PublishedCasesTest, OffloadedCasesAreNotBelowNinetyPercentOfTheMeasurement) {
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  int offloaded = 0;
  for (const nlohmann::json& c : root.at("cases")) {
    if (!OffloadsParams(c)) continue;
    const testing::CliRun run = testing::RunCalc(testing::CaseArgs(c), Lang::En);
    ASSERT_EQ(run.exit_code, 0) << c.at("id") << ": " << run.err;
    const nlohmann::json memory = nlohmann::json::parse(run.out).at("memory");
    const double ratio = PredictedFigureGiB(memory, c.value("figure", "max_memory_allocated")) / c.at("measured_gib").get<double>();
    EXPECT_GE(ratio, 0.90) << c.at("id");
    EXPECT_GT(memory.at("host_ram").at("offloaded").at("bytes").get<double>(), 0) << c.at("id") << ": offload prints the host RAM it needs";
    ++offloaded;
  }
  EXPECT_GE(offloaded, 6);
}

bool IsFsdp1ReservedCase(const nlohmann::json& c) {
  if (c.value("figure", "") != "max_memory_reserved") return false;
  const auto args = c.at("args").get<std::vector<std::string>>();
  const auto sharding = std::find(args.begin(), args.end(), "--sharding");
  const auto version = std::find(args.begin(), args.end(), "--fsdp-version");
  const bool fsdp = sharding != args.end() && sharding + 1 != args.end() && *(sharding + 1) == "fsdp";
  return fsdp && (version == args.end() || (version + 1 != args.end() && *(version + 1) == "1"));
}

// vram prints what published FSDP1 runs reserved beyond its figure (calc/reserved_margin.h) from
// calculator_constants.json's fsdp1_reserved_checks; those numbers must be what the cases give now,
// checked and open alike, so a model change or a new case cannot leave the printed evidence stale.
TEST(PublishedCasesTest, Fsdp1ReservedChecksAreWhatTheCasesGive) {
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  std::vector<double> ratios;
  for (const nlohmann::json* list : {&root.at("cases"), &root.at("open_cases").at("cases")}) {
    for (const nlohmann::json& c : *list) {
      if (!IsFsdp1ReservedCase(c)) continue;
      const testing::CliRun run = testing::RunCalc(testing::CaseArgs(c), Lang::En);
      ASSERT_EQ(run.exit_code, 0) << c.at("id") << ": " << run.err;
      const nlohmann::json memory = nlohmann::json::parse(run.out).at("memory");
      ratios.push_back(c.at("measured_gib").get<double>() / PredictedFigureGiB(memory, "max_memory_reserved"));
    }
  }
  ASSERT_FALSE(ratios.empty());
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  const double median = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  const CalcConstants& k = CalcConstants::Builtin();
  EXPECT_EQ(k.fsdp1_reserved_runs, static_cast<int>(n));
  EXPECT_NEAR(k.fsdp1_reserved_ratio_median, median, 0.0005);
  // Rounded up to three decimals, so the figure vram prints with it is never below a run.
  EXPECT_GE(k.fsdp1_reserved_ratio_max, ratios.back());
  EXPECT_LT(k.fsdp1_reserved_ratio_max, ratios.back() + 0.001);
  // The note says "all ... reserved more": true only while every run is above the estimate.
  EXPECT_GT(ratios.front(), 1.0);
}

// What vram prints as "with the largest margin seen" must not be below any published FSDP1 figure,
// whatever the figure: by construction for the reserved peaks, and a real check for the ones that
// are not (PEFT's nvidia-smi reading, the allocated peaks). Compared in the figure's own terms: the
// memory in use includes the CUDA context, the allocator's figures do not.
TEST(PublishedCasesTest, Fsdp1MarginFigureIsNotBelowAnyPublishedFsdp1Figure) {
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  const double context_gib = CalcConstants::Builtin().cuda_context_gib;
  int checked = 0;
  for (const nlohmann::json* list : {&root.at("cases"), &root.at("open_cases").at("cases")}) {
    for (const nlohmann::json& c : *list) {
      const testing::CliRun run = testing::RunCalc(testing::CaseArgs(c), Lang::En);
      ASSERT_EQ(run.exit_code, 0) << c.at("id") << ": " << run.err;
      const nlohmann::json out = nlohmann::json::parse(run.out);
      const nlohmann::json& margin = out.at("memory").at("published_reserved_margin");
      if (margin.is_null()) continue;
      const double at_max = margin.at("per_gpu_at_max").at("bytes").get<double>() / (1 << 30);
      const bool in_use = c.value("figure", "") == "device_memory_used";
      EXPECT_GE(in_use ? at_max : at_max - context_gib, c.at("measured_gib").get<double>()) << c.at("id");
      ++checked;
    }
  }
  EXPECT_GE(checked, 20);
}

// torchtune's LoRA rows were measured with the recipe configs of the table's commit; the configs
// changed under the unchanged table later (docs/calculators-evidence.md, "Which adapters torchtune's table
// measured"). Each such case quotes its recipe's adapter settings (`recipe_lora_targets`, copied
// from the config at the pinned commit); the `--lora-targets` it runs with must name the same
// layers, in torchtune's names: attention q_proj, k_proj, v_proj, output_proj; MLP w1, w2, w3.
std::set<std::string> TorchtuneLayers(const std::string& recipe) {
  std::set<std::string> layers;
  for (const char* name : {"q_proj", "k_proj", "v_proj", "output_proj"}) {
    if (recipe.find(fmt::format("'{}'", name)) != std::string::npos) layers.insert(name);
  }
  if (recipe.find("apply_lora_to_mlp: True") != std::string::npos) layers.insert({"w1", "w2", "w3"});
  if (recipe.find("apply_lora_to_output: True") != std::string::npos) layers.insert("output");
  return layers;
}

std::set<std::string> LayersOfTargetsFlag(const std::string& flag) {
  static const std::map<std::string, std::vector<std::string>> kNames = {
      {"q", {"q_proj"}}, {"k", {"k_proj"}}, {"v", {"v_proj"}}, {"o", {"output_proj"}},
      {"gate", {"w1"}}, {"down", {"w2"}}, {"up", {"w3"}},
      {"qv", {"q_proj", "v_proj"}}, {"attention", {"q_proj", "k_proj", "v_proj", "output_proj"}},
      {"all-linear", {"q_proj", "k_proj", "v_proj", "output_proj", "w1", "w2", "w3"}}};
  std::set<std::string> layers;
  std::stringstream items(flag);
  for (std::string item; std::getline(items, item, ',');) {
    const auto found = kNames.find(item);
    EXPECT_NE(found, kNames.end()) << "unknown target " << item;
    if (found != kNames.end()) layers.insert(found->second.begin(), found->second.end());
  }
  return layers;
}

TEST(PublishedCasesTest, LoraTargetsOfTorchtunesTableAreTheRecipesOfItsCommit) {
  int checked = 0;
  // Kept in a variable: a range-for over a member of a temporary reads a destroyed object.
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  for (const nlohmann::json& c : root.at("cases")) {
    if (!c.contains("recipe_lora_targets")) continue;
    SCOPED_TRACE(c.at("id").get<std::string>());
    const auto args = c.at("args").get<std::vector<std::string>>();
    const auto flag = std::find(args.begin(), args.end(), "--lora-targets");
    ASSERT_NE(flag, args.end());
    ASSERT_NE(flag + 1, args.end());
    EXPECT_EQ(LayersOfTargetsFlag(*(flag + 1)), TorchtuneLayers(c.at("recipe_lora_targets").get<std::string>()));
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(PublishedCasesTest, EveryCaseNamesItsSourceAndSettings) {
  // Kept in a variable: a range-for over a member of a temporary reads a destroyed object.
  const nlohmann::json root = testing::LoadCases("published_cases.json");
  for (const nlohmann::json& c : root.at("cases")) {
    EXPECT_EQ(c.at("source").get<std::string>().rfind("https://", 0), 0u) << c.at("id");
    EXPECT_FALSE(c.at("settings").get<std::string>().empty()) << c.at("id");
    EXPECT_FALSE(c.at("measured").get<std::string>().empty()) << c.at("id");
  }
}

}  // namespace
}  // namespace labcheck::calc

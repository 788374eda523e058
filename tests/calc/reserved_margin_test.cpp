// What published FSDP1 runs reserved beyond the estimate, printed beside it (reserved_margin.h).
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "calc/byte_units.h"
#include "calc/reserved_margin.h"
#include "calc/training_plan.h"
#include "calc_cli.h"
#include "catalog_model.h"

namespace labcheck::calc {
namespace {

const std::vector<std::string> kFsdp70bQlora = {"vram", "llama-3.1-70b", "--method", "qlora", "--gpus", "2", "--sharding", "fsdp", "--offload", "params"};

std::vector<std::string> With(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

TEST(ReservedMarginTest, FsdpOneOnSeveralGpusGetsTheLargestPublishedRatioOnItsReservedFigure) {
  const testing::CliRun run = testing::RunCalc(With(kFsdp70bQlora, {"--json"}), Lang::En);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json memory = nlohmann::json::parse(run.out).at("memory");
  const nlohmann::json& margin = memory.at("published_reserved_margin");
  ASSERT_TRUE(margin.is_object());
  const CalcConstants& k = CalcConstants::Builtin();
  EXPECT_EQ(margin.at("runs").get<int>(), k.fsdp1_reserved_runs);
  const double context = k.cuda_context_gib * kBytesPerGiB;
  const double reserved = memory.at("peak_total").at("bytes").get<double>() - context;
  EXPECT_NEAR(margin.at("per_gpu_at_max").at("bytes").get<double>(), reserved * k.fsdp1_reserved_ratio_max + context, 1.0);
  EXPECT_GT(margin.at("per_gpu_at_max").at("bytes").get<double>(), memory.at("peak_total").at("bytes").get<double>());
}

TEST(ReservedMarginTest, TheTextSaysHowManyRunsAndHowMuchMoreInBothLanguages) {
  const CalcConstants& k = CalcConstants::Builtin();
  const testing::CliRun en = testing::RunCalc(kFsdp70bQlora, Lang::En);
  ASSERT_EQ(en.exit_code, 0) << en.err;
  EXPECT_NE(en.out.find(fmt::format("all {} published FSDP1 runs", k.fsdp1_reserved_runs)), std::string::npos) << en.out;
  EXPECT_NE(en.out.find(fmt::format("up to {} %", std::lround((k.fsdp1_reserved_ratio_max - 1) * 100))), std::string::npos) << en.out;
  const testing::CliRun ru = testing::RunCalc(kFsdp70bQlora, Lang::Ru);
  ASSERT_EQ(ru.exit_code, 0) << ru.err;
  EXPECT_NE(ru.out.find(fmt::format("все {} опубликованных запусков FSDP1", k.fsdp1_reserved_runs)), std::string::npos) << ru.out;
}

// The evidence is FSDP1 FULL_SHARD over several cards; elsewhere the estimate stands alone.
TEST(ReservedMarginTest, NothingForFsdp2ShardGradOpOneGpuOrDeepSpeed) {
  for (const auto& args : {With(kFsdp70bQlora, {"--fsdp-version", "2", "--json"}),
                           With(kFsdp70bQlora, {"--reshard-after-forward", "no", "--json"}),
                           std::vector<std::string>{"vram", "llama-3.1-8b", "--method", "qlora", "--json"},
                           std::vector<std::string>{"vram", "llama-3.1-70b", "--method", "qlora", "--gpus", "4", "--sharding", "zero3", "--json"}}) {
    const testing::CliRun run = testing::RunCalc(args, Lang::En);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(nlohmann::json::parse(run.out).at("memory").at("published_reserved_margin").is_null()) << args.back();
    const testing::CliRun text = testing::RunCalc(std::vector<std::string>(args.begin(), args.end() - 1), Lang::En);
    EXPECT_EQ(text.out.find("published FSDP1 runs"), std::string::npos);
  }
}

// vram's rent table: a size that does it on n >= 2 cards by the estimate but not with the largest
// published FSDP1 margin is marked, in the text and in --json; one card and a fit with room are not.
TEST(ReservedMarginTest, RentTableMarksSizesThatFallShortOfTheMargin) {
  const testing::CliRun json = testing::RunCalc({"vram", "llama-3.1-70b", "--method", "qlora", "--json"}, Lang::En);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json root = nlohmann::json::parse(json.out);
  std::set<double> short_sizes;
  int holds = 0;
  for (const nlohmann::json& g : root.at("rent")) {
    const nlohmann::json& fits = g.at("fits_with_fsdp1_margin");
    if (g.at("count").is_null() || g.at("count").get<int>() == 1) {
      EXPECT_TRUE(fits.is_null()) << g.at("id");
      continue;
    }
    ASSERT_TRUE(fits.is_boolean()) << g.at("id");
    if (fits.get<bool>()) ++holds;
    else short_sizes.insert(g.at("memory_gib").get<double>());
  }
  EXPECT_GT(holds, 0);
  ASSERT_FALSE(short_sizes.empty());
  const testing::CliRun text = testing::RunCalc({"vram", "llama-3.1-70b", "--method", "qlora"}, Lang::En);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (double gib : short_sizes) {
    EXPECT_TRUE(std::regex_search(text.out, std::regex(fmt::format(R"(\n  {:g} GiB +[248]\* )", gib)))) << gib << "\n" << text.out;
  }
  EXPECT_NE(text.out.find("* Under FSDP1, with the largest margin the published runs showed"), std::string::npos) << text.out;
}

TrainingPlan PlanOnFourCards(const std::string& model, Method method, double card_gib) {
  TrainingSettings s;
  s.method = method;
  s.checkpointing = true;
  s.sharding = Sharding::Fsdp;
  return PlanTraining(testing::CatalogModel(model), s, 1e8, 4, card_gib, Throughput{20, 40, Text("test")}, Bandwidth{10, Text("test")},
                      CalcConstants::Builtin());
}

// plan on the course machine's cards: 70B QLoRA is sharded with FSDP1 over four, so each row also
// gets the batch that still fits with the worst published FSDP1 margin, the largest power of two
// whose vram margin figure fits the card.
TEST(ReservedMarginTest, PlanGivesTheBatchThatFitsWithTheFsdpOneMargin) {
  const CalcConstants& k = CalcConstants::Builtin();
  const TrainingPlan plan = PlanOnFourCards("llama-3.1-70b", Method::Qlora, 32);
  ASSERT_EQ(plan.shard_gpus, 4);
  ASSERT_TRUE(plan.fsdp1_margin_ratio.has_value());
  EXPECT_DOUBLE_EQ(*plan.fsdp1_margin_ratio, k.fsdp1_reserved_ratio_max);
  bool some_row_smaller = false;
  for (const PlanRow& row : plan.rows) {
    SCOPED_TRACE(row.seq);
    if (!row.max_batch) {
      EXPECT_FALSE(row.max_batch_with_margin.has_value());
      continue;
    }
    const int64_t with_margin = row.max_batch_with_margin.value_or(0);
    EXPECT_LE(with_margin, *row.max_batch);
    some_row_smaller = some_row_smaller || with_margin < *row.max_batch;
    TrainingSettings s;
    s.method = Method::Qlora;
    s.checkpointing = true;
    s.sharding = Sharding::Fsdp;
    s.gpus = 4;
    s.seq = row.seq;
    auto margin_at = [&](int64_t batch) {
      s.batch = batch;
      return PublishedReservedMargin(s, EstimateTrainingMemory(testing::CatalogModel("llama-3.1-70b"), s, k), k)->per_gpu_at_max;
    };
    if (with_margin > 0) EXPECT_LE(margin_at(with_margin), 32 * kBytesPerGiB);
    EXPECT_GT(margin_at(with_margin > 0 ? with_margin * 2 : 1), 32 * kBytesPerGiB);
  }
  EXPECT_TRUE(some_row_smaller);  // on these cards the margin costs batch somewhere
}

TEST(ReservedMarginTest, PlanOnOneCardPerCopyHasNoMargin) {
  const TrainingPlan plan = PlanOnFourCards("qwen3-8b", Method::Qlora, 32);
  ASSERT_EQ(plan.shard_gpus, 1);
  EXPECT_FALSE(plan.fsdp1_margin_ratio.has_value());
  for (const PlanRow& row : plan.rows) EXPECT_FALSE(row.max_batch_with_margin.has_value()) << row.seq;
}

}  // namespace
}  // namespace labcheck::calc

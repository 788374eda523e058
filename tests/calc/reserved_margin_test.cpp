// What published FSDP1 runs reserved beyond the estimate, printed beside it (reserved_margin.h).
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "calc/byte_units.h"
#include "calc/reserved_margin.h"
#include "calc_cli.h"

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
TEST(ReservedMarginTest, NothingForFsdp2OneGpuOrDeepSpeed) {
  for (const auto& args : {With(kFsdp70bQlora, {"--fsdp-version", "2", "--json"}),
                           std::vector<std::string>{"vram", "llama-3.1-8b", "--method", "qlora", "--json"},
                           std::vector<std::string>{"vram", "llama-3.1-70b", "--method", "qlora", "--gpus", "4", "--sharding", "zero3", "--json"}}) {
    const testing::CliRun run = testing::RunCalc(args, Lang::En);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(nlohmann::json::parse(run.out).at("memory").at("published_reserved_margin").is_null()) << args.back();
    const testing::CliRun text = testing::RunCalc(std::vector<std::string>(args.begin(), args.end() - 1), Lang::En);
    EXPECT_EQ(text.out.find("published FSDP1 runs"), std::string::npos);
  }
}

}  // namespace
}  // namespace labcheck::calc

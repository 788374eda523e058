// Golden files: each subcommand's text and JSON output for fixed inputs. A change in any formula
// shows up here as a diff to review; LAB_UPDATE_GOLDEN=1 rewrites the files after review.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "calc_cli.h"

namespace labcheck::calc {
namespace {

std::string GoldenPath(const std::string& name) { return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/calc/golden/" + name; }

// Configs under tests/calc/configs are given by path; the golden files say <source> for the
// checkout's folder so they do not depend on where the repository lives.
std::string WithoutSourceDir(std::string text) {
  const std::string dir = LAB_CHECK_SOURCE_DIR;
  for (size_t at = text.find(dir); at != std::string::npos; at = text.find(dir, at)) text.replace(at, dir.size(), "<source>");
  return text;
}

std::string ConfigPath(const std::string& name) { return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/calc/configs/" + name; }

void ExpectGolden(const std::string& name, const std::string& raw) {
  const std::string actual = WithoutSourceDir(raw);
  if (std::getenv("LAB_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(GoldenPath(name), std::ios::binary) << actual;
    return;
  }
  std::ifstream in(GoldenPath(name), std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << GoldenPath(name) << " (run with LAB_UPDATE_GOLDEN=1)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden " << name;
}

struct GoldenCase {
  std::string name;
  std::vector<std::string> args;
  Lang lang;
  std::vector<LiveGpu> gpus;
};

class GoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenTest, OutputMatches) {
  const GoldenCase& c = GetParam();
  const testing::CliRun run = testing::RunCalc(c.args, c.lang, c.gpus);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  ExpectGolden(c.name, run.out);
}

const std::vector<LiveGpu> kFourRtx4080 = {{"NVIDIA GeForce RTX 4080", 31.99}, {"NVIDIA GeForce RTX 4080", 31.99},
                                           {"NVIDIA GeForce RTX 4080", 31.99}, {"NVIDIA GeForce RTX 4080", 31.99}};

INSTANTIATE_TEST_SUITE_P(
    Calculators, GoldenTest,
    ::testing::Values(
        GoldenCase{"vram_qwen3_8b_qlora_ru.txt", {"vram", "qwen3-8b", "--method", "qlora", "--checkpointing"}, Lang::Ru, {}},
        GoldenCase{"vram_llama31_8b_full_en.txt", {"vram", "llama-3.1-8b", "--method", "full"}, Lang::En, {}},
        GoldenCase{"vram_7b_full_en.json", {"vram", "7B", "--method", "full", "--json"}, Lang::En, {}},
        GoldenCase{"vram_mistral_lora_en.json", {"vram", "mistral-7b", "--method", "lora", "--seq", "1024", "--batch", "4", "--json"}, Lang::En, {}},
        GoldenCase{"kv_gemma3_27b_en.txt", {"kv", "gemma-3-27b", "--context", "32768", "--batch", "4"}, Lang::En, {}},
        GoldenCase{"kv_llama31_70b_tp4_en.json", {"kv", "llama-3.1-70b", "--context", "8192", "--tp", "4", "--kv-dtype", "fp8", "--json"}, Lang::En, {}},
        GoldenCase{"serve_qwen3_32b_ru.txt", {"serve", "Qwen/Qwen3-32B", "--gpus", "4", "--gpu-mem", "32"}, Lang::Ru, {}},
        GoldenCase{"serve_70b_int4_en.json", {"serve", "70B", "--quant", "int4", "--gpus", "4", "--gpu-mem", "32", "--json"}, Lang::En, {}},
        GoldenCase{"cost_qwen3_8b_en.txt", {"cost", "--model", "qwen3-8b", "--tokens", "1e9", "--gpus", "4", "--price", "0.5"}, Lang::En, {}},
        GoldenCase{"cost_params_lora_en.json", {"cost", "--params", "7B", "--tokens", "2e8", "--method", "lora", "--tflops", "30", "--json"}, Lang::En, {}},
        GoldenCase{"plan_qwen3_8b_lora_en.txt", {"plan", "qwen3-8b", "--method", "lora", "--tokens", "1e8"}, Lang::En, kFourRtx4080},
        GoldenCase{"plan_qwen3_14b_full_en.json", {"plan", "qwen3-14b", "--method", "full", "--checkpointing", "--json"}, Lang::En, kFourRtx4080},
        GoldenCase{"plan_no_gpu_ru.txt", {"plan", "qwen3-8b"}, Lang::Ru, {}},
        // Issue 40: the course machine's 70B QLoRA, FSDP1 over four cards: the batch with the published FSDP1 margin.
        GoldenCase{"plan_llama31_70b_qlora_ru.txt", {"plan", "llama-3.1-70b", "--method", "qlora", "--tokens", "1e8"}, Lang::Ru, kFourRtx4080},
        // Issue 21: MLA replicated under TP, DeepSeek's experts, windows, Mamba, quantised checkpoints.
        GoldenCase{"kv_deepseek_v3_tp8_en.txt", {"kv", ConfigPath("deepseek-v3"), "--context", "32768", "--batch", "8", "--tp", "8"}, Lang::En, {}},
        GoldenCase{"kv_deepseek_v3_tp8_en.json", {"kv", ConfigPath("deepseek-v3"), "--context", "32768", "--tp", "8", "--json"}, Lang::En, {}},
        GoldenCase{"serve_deepseek_v3_8xh200_en.txt", {"serve", ConfigPath("deepseek-v3"), "--gpus", "8", "--gpu-mem", "139.8", "--max-model-len", "32768"}, Lang::En, {}},
        GoldenCase{"serve_deepseek_v2_lite_ru.txt", {"serve", ConfigPath("deepseek-v2-lite"), "--gpus", "4", "--gpu-mem", "32"}, Lang::Ru, {}},
        GoldenCase{"plan_deepseek_v2_lite_lora_en.json", {"plan", ConfigPath("deepseek-v2-lite"), "--method", "lora", "--json"}, Lang::En, kFourRtx4080},
        GoldenCase{"vram_deepseek_v3_qlora_en.txt", {"vram", ConfigPath("deepseek-v3"), "--method", "qlora"}, Lang::En, {}},
        GoldenCase{"kv_gpt_oss_20b_ru.txt", {"kv", ConfigPath("gpt-oss-20b"), "--context", "131072"}, Lang::Ru, {}},
        GoldenCase{"serve_gpt_oss_20b_en.json", {"serve", ConfigPath("gpt-oss-20b"), "--gpus", "1", "--gpu-mem", "23.6", "--json"}, Lang::En, {}},
        GoldenCase{"kv_jamba_en.txt", {"kv", ConfigPath("jamba-v0.1"), "--context", "262144", "--tp", "2"}, Lang::En, {}}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) {
      std::string name;
      for (char c : info.param.name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST(CalcCliTest, UnknownModelIsExitCode2WithClosestNames) {
  const testing::CliRun run = testing::RunCalc({"vram", "qwen3-9b"}, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("qwen3-8b"), std::string::npos) << run.err;
}

TEST(CalcCliTest, KeepLogitsWithoutTransformersLossIsRefused) {
  // --keep-logits counts transformers' FP32 logits held in the output; a chunked or fused loss has
  // no such tensor, so the pair is a mistake to name, not a setting to guess at.
  const testing::CliRun run = testing::RunCalc({"vram", "qwen3-8b", "--method", "lora", "--loss", "chunked", "--keep-logits"}, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("drop --keep-logits"), std::string::npos) << run.err;
}

TEST(CalcCliTest, FsdpVersionWithoutFsdpIsRefused) {
  // --fsdp-version picks between PyTorch's two FSDP engines; under DDP or ZeRO it names nothing.
  const testing::CliRun run = testing::RunCalc({"vram", "qwen3-8b", "--gpus", "2", "--sharding", "zero3", "--fsdp-version", "2"}, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("add --sharding fsdp or hybrid"), std::string::npos) << run.err;
  EXPECT_EQ(testing::RunCalc({"vram", "qwen3-8b", "--gpus", "2", "--sharding", "fsdp", "--fsdp-version", "2"}, Lang::En).exit_code, 0);
}

TEST(CalcCliTest, KvOfABareSizeExplainsThatItNeedsTheArchitecture) {
  const testing::CliRun run = testing::RunCalc({"kv", "7B", "--context", "4096"}, Lang::Ru);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("архитектура"), std::string::npos) << run.err;
}

TEST(CalcCliTest, KvRefusesATensorParallelDegreeVllmRefuses) {
  // Llama 3.1 70B: 64 heads, 8 KV heads. tp 3 divides neither.
  const testing::CliRun run = testing::RunCalc({"kv", "llama-3.1-70b", "--context", "8192", "--tp", "3"}, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("tensor parallel 3"), std::string::npos) << run.err;
  // tp 16 replicates each KV head on 2 GPUs, as vLLM does, and says so.
  const testing::CliRun wide = testing::RunCalc({"kv", "llama-3.1-70b", "--context", "8192", "--tp", "16"}, Lang::En);
  EXPECT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_NE(wide.out.find("replicated on 2 GPUs"), std::string::npos) << wide.out;
}

TEST(CalcCliTest, JsonIsTheSameInEitherLanguage) {
  const std::vector<std::vector<std::string>> commands = {
      {"vram", "qwen3-8b", "--method", "qlora", "--json"},
      {"vram", "7B", "--method", "qlora", "--json"},
      {"kv", "gemma-3-27b", "--context", "32768", "--json"},
      {"serve", "qwen3-32b", "--json"},
      {"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "24", "--json"},
      {"cost", "--model", "qwen3-8b", "--tokens", "1e9", "--json"},
      {"plan", "qwen3-8b", "--json"},
  };
  const std::vector<LiveGpu> gpus = {{"NVIDIA GeForce RTX 4090", 23.99}};
  for (const auto& args : commands) {
    for (const auto& live : {std::vector<LiveGpu>{}, gpus}) {
      const testing::CliRun ru = testing::RunCalc(args, Lang::Ru, live);
      const testing::CliRun en = testing::RunCalc(args, Lang::En, live);
      EXPECT_EQ(ru.exit_code, 0) << args[0] << " " << ru.err;
      EXPECT_EQ(ru.out, en.out) << args[0] << " " << args[1];
    }
  }
}

TEST(CalcCliTest, BareSizeGivesARangeWithItsAssumptions) {
  const testing::CliRun run = testing::RunCalc({"vram", "7B", "--method", "qlora"}, Lang::En);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Size only: needed per GPU"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Assumption: the model is shaped like"), std::string::npos) << run.out;
  const testing::CliRun json = testing::RunCalc({"vram", "7B", "--method", "qlora", "--json"}, Lang::En);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  const double low = j.at("size_range").at("peak_total").at("low").at("bytes").get<double>();
  const double high = j.at("size_range").at("peak_total").at("high").at("bytes").get<double>();
  EXPECT_GT(low, 4e9);   // NF4 weights of 7B alone are 3.6 GB
  EXPECT_LE(low, high);
  EXPECT_LT(high, 20e9);
  EXPECT_GE(j.at("size_range").at("shapes").size(), 2u);
}

TEST(CalcCliTest, DefaultsTakenAreListedWithTheirTool) {
  const testing::CliRun run = testing::RunCalc({"vram", "qwen3-8b", "--method", "lora", "--loss", "chunked", "--json"}, Lang::En);
  const nlohmann::json j = nlohmann::json::parse(run.out);
  bool attention = false, loss = false;
  for (const nlohmann::json& d : j.at("defaults_taken")) {
    attention |= d.at("knob") == "attention" && d.at("value") == "sdpa";
    loss |= d.at("knob") == "loss";
  }
  EXPECT_TRUE(attention);
  EXPECT_FALSE(loss);  // given on the command line
}

TEST(CalcCliTest, IncompatibleKnobsAreBadInput) {
  const testing::CliRun run = testing::RunCalc({"vram", "qwen3-8b", "--gpus", "4", "--offload", "params"}, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--sharding fsdp"), std::string::npos) << run.err;
  const testing::CliRun targets = testing::RunCalc({"vram", "qwen3-8b", "--method", "lora", "--lora-targets", "q,x"}, Lang::En);
  EXPECT_EQ(targets.exit_code, 2);
  EXPECT_NE(targets.err.find("--lora-targets"), std::string::npos) << targets.err;
}

TEST(CalcCliTest, PlanTakesMeasuredSpeedAndTheReportsCardsWhenNoneAreLive) {
  // A report from a machine with two 24 GiB cards whose Llama smoke test ran at 55 TFLOPS.
  const std::string path = ::testing::TempDir() + "/calc-plan-report.json";
  std::ofstream(path) << R"({"checks": [
    {"id": "gpu.inventory", "data": {"gpus": [{"name": "NVIDIA GeForce RTX 4090", "memory_total_gib": 23.99},
                                              {"name": "NVIDIA GeForce RTX 4090", "memory_total_gib": 23.99}]}},
    {"id": "smoke.llama", "measurements": [{"key": "smoke.llama.train_tflops", "value": 55.0}]}]})";
  const testing::CliRun run = testing::RunCalc({"plan", "qwen3-8b", "--method", "qlora", "--json"}, Lang::En, {}, path);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_TRUE(j.at("gpus_from_report").get<bool>());
  EXPECT_EQ(j.at("gpus").size(), 2u);
  EXPECT_DOUBLE_EQ(j.at("tflops_per_gpu").at("low").get<double>(), 55.0);
  EXPECT_EQ(j.at("plan").at("shard_gpus"), 1);  // QLoRA of 8B fits one 24 GiB card
  // cost --from-report uses the same measured speed.
  const testing::CliRun cost = testing::RunCalc({"cost", "--params", "8B", "--tokens", "1e9", "--from-report", "--json"}, Lang::En, {}, path);
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(cost.out).at("cost").at("tflops_per_gpu").at("high").get<double>(), 55.0);
}

TEST(CalcCliTest, CostFromReportSaysTheLastRunsInterpreterDidNotAnswer) {
  // The run's interpreter hung (issue 25): no smoke figure, and "run lab_check" would only repeat it.
  const std::string path = ::testing::TempDir() + "/calc-dead-python-report.json";
  std::ofstream(path) << R"({"checks": [
    {"id": "env.python", "status": "FAIL",
     "data": {"interpreter_unresponsive": {"python": "/x/python", "stage": "import torch", "waited_s": 90}}},
    {"id": "smoke.llama_train", "status": "SKIP"}]})";
  const testing::CliRun run = testing::RunCalc({"cost", "--params", "7B", "--tokens", "1e9", "--from-report"}, Lang::En, {}, path);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("the interpreter /x/python did not answer within 90 s: `import torch` hangs"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("timeout 30 /x/python -c \"import torch\""), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--tflops"), std::string::npos) << run.err;
}

TEST(CalcCliTest, CostFromReportWithoutReportIsBadInput) {
  const testing::CliRun run = testing::RunCalc({"cost", "--params", "7B", "--tokens", "1e9", "--from-report"}, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--tflops"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace labcheck::calc

// The judges on hand-written probe results: what passes, what fails, and that a missing field is
// a FAIL that names it.
#include "smoke/judges.h"

#include <gtest/gtest.h>

#include "reference/hints.h"

namespace labcheck::smoke {
namespace {

const SmokeTest& Spec(const std::string& name) { return *FindSmokeTest(name); }

nlohmann::json DistResult(double max_abs_diff) {
  return {{"status", "ran"}, {"backend", "gloo"}, {"world_size", 2}, {"device", "cpu"},
          {"cpu_because", "no_gpu"}, {"steps", 5}, {"max_abs_diff", max_abs_diff},
          {"cross_rank_max_diff", 0.0}, {"max_abs_param", 0.25}};
}

TEST(JudgeDistributed, EqualParametersPass) {
  CheckResult r = JudgeDistributed(Spec("ddp"), DistResult(1.5e-8));
  EXPECT_EQ(r.outcome, Outcome::Pass);
  ASSERT_NE(r.Find("smoke.ddp.max_abs_param_diff"), nullptr);
  EXPECT_DOUBLE_EQ(r.Find("smoke.ddp.max_abs_param_diff")->value, 1.5e-8);
  EXPECT_NE(r.summary.en.find("gloo"), std::string::npos);
}

TEST(JudgeDistributed, ADifferenceBeyondToleranceFailsWithTheWrongSumHint) {
  CheckResult r = JudgeDistributed(Spec("fsdp2"), DistResult(1e-3));
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kWrongSum).ru);
  EXPECT_NE(r.reason.en.find("1e-05"), std::string::npos) << r.reason.en;  // the tolerance is stated
}

TEST(JudgeDistributed, NanIsNeverEqual) {
  nlohmann::json j = DistResult(0);
  j["max_abs_diff"] = "nan";
  EXPECT_EQ(JudgeDistributed(Spec("ddp"), j).outcome, Outcome::Fail);
}

TEST(JudgeDistributed, AMissingFieldFailsNamingIt) {
  nlohmann::json j = DistResult(0);
  j.erase("max_abs_diff");
  CheckResult r = JudgeDistributed(Spec("ddp"), j);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("'max_abs_diff'"), std::string::npos) << r.reason.en;
}

nlohmann::json LlamaResult(const std::string& device) {
  return {{"status", "ran"}, {"device", device}, {"device_name", device == "cuda" ? "NVIDIA H100" : "CPU"},
          {"config", device == "cuda" ? "gpu_170m" : "cpu_tiny"}, {"params_total", 168058880},
          {"params_matmul", 168000000}, {"layers", 12}, {"d_model", 1024}, {"seq_len", 1024}, {"batch", 8},
          {"warmup_steps", 3}, {"steps", 10}, {"attention_impl", "sdpa"}, {"tokens_per_s", 50000.0},
          {"train_tflops", 55.0}, {"loss_first", 10.4}, {"loss_last", 10.1}, {"peak_memory_gib", nullptr}};
}

TEST(JudgeLlamaTrain, OnAGpuItGivesTheCourseFigures) {
  CheckResult r = JudgeLlamaTrain(Spec("llama_train"), LlamaResult("cuda"));
  EXPECT_EQ(r.outcome, Outcome::Pass);
  ASSERT_NE(r.Find("smoke.llama.tokens_per_s"), nullptr);
  ASSERT_NE(r.Find("smoke.llama.train_tflops"), nullptr);
  EXPECT_DOUBLE_EQ(r.Find("smoke.llama.train_tflops")->value, 55.0);
  EXPECT_NE(r.Find("smoke.llama.train_tflops")->method.en.find("6·N·tokens"), std::string::npos);
}

TEST(JudgeLlamaTrain, OnACpuItKeepsItsFiguresAwayFromTheCourseKeys) {
  CheckResult r = JudgeLlamaTrain(Spec("llama_train"), LlamaResult("cpu"));
  EXPECT_EQ(r.outcome, Outcome::Pass);
  EXPECT_EQ(r.Find("smoke.llama.train_tflops"), nullptr);
  EXPECT_EQ(r.Find("smoke.llama.tokens_per_s"), nullptr);
  ASSERT_NE(r.Find("smoke.llama_cpu_tiny.train_gflops"), nullptr);
  EXPECT_DOUBLE_EQ(r.Find("smoke.llama_cpu_tiny.train_gflops")->value, 55000.0);
  EXPECT_NE(r.summary.en.find("not comparable"), std::string::npos);
}

TEST(JudgeLlamaTrain, ADivergedLossFails) {
  nlohmann::json j = LlamaResult("cuda");
  j["loss_last"] = "nan";
  EXPECT_EQ(JudgeLlamaTrain(Spec("llama_train"), j).outcome, Outcome::Fail);
}

nlohmann::json LoraResult() {
  return {{"status", "ran"}, {"peft_version", "0.13.0"}, {"adapter_tensors", 8}, {"adapter_tensors_with_grad", 8},
          {"base_tensors_trainable", 0}, {"base_tensors_with_grad", 0}, {"trainable_params", 16384},
          {"total_params", 3000000}, {"adapter_max_change", 0.01}, {"base_max_change", 0.0}};
}

TEST(JudgeLora, OnlyAdaptersLearning) {
  EXPECT_EQ(JudgeLora(Spec("lora"), LoraResult()).outcome, Outcome::Pass);
  nlohmann::json j = LoraResult();
  j["base_tensors_with_grad"] = 3;
  j["base_max_change"] = 0.02;
  CheckResult r = JudgeLora(Spec("lora"), j);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("3 base tensors got gradients"), std::string::npos) << r.reason.en;
}

TEST(JudgeQlora, ReportsBothMemoriesAndNeedsTheSmallerOne) {
  nlohmann::json j = {{"status", "ran"}, {"bitsandbytes_version", "0.45.0"}, {"bf16_model_mib", 120.0},
                      {"nf4_model_mib", 50.0}, {"linear4bit_layers", 28}, {"loss", 9.1}, {"adapter_tensors", 32},
                      {"adapter_tensors_with_grad", 32}, {"base_tensors_with_grad", 0}, {"params", 62000000}};
  CheckResult r = JudgeQlora(Spec("qlora"), j);
  EXPECT_EQ(r.outcome, Outcome::Pass);
  EXPECT_DOUBLE_EQ(r.Find("smoke.qlora.bf16_model_mib")->value, 120.0);
  EXPECT_DOUBLE_EQ(r.Find("smoke.qlora.nf4_model_mib")->value, 50.0);
  j["linear4bit_layers"] = 0;
  EXPECT_EQ(JudgeQlora(Spec("qlora"), j).outcome, Outcome::Fail);
}

nlohmann::json Attention(nlohmann::json flash_attn, nlohmann::json sdpa) {
  return {{"status", "ran"}, {"variants", {{"flash_attn", flash_attn}, {"sdpa_flash", sdpa}}}};
}

TEST(JudgeFlashAttention, PassesOnWhatRanAndSaysWhatWasSkipped) {
  CheckResult r = JudgeFlashAttention(
      Spec("flash_attention"),
      Attention({{"status", "skip"}, {"reason", "package_missing"}, {"package", "flash-attn"}},
                {{"status", "ran"}, {"max_abs_err", 0.004}}));
  EXPECT_EQ(r.outcome, Outcome::Pass);
  EXPECT_NE(r.summary.en.find("SDPA (flash)"), std::string::npos);
  EXPECT_NE(r.summary.en.find("flash-attn is not installed"), std::string::npos) << r.summary.en;
  EXPECT_NE(r.hint.en.find("pip install flash-attn"), std::string::npos);
}

TEST(JudgeFlashAttention, AWrongOrFailingVariantFails) {
  EXPECT_EQ(JudgeFlashAttention(Spec("flash_attention"),
                                Attention({{"status", "ran"}, {"max_abs_err", 0.5}}, {{"status", "ran"}, {"max_abs_err", 0.004}}))
                .outcome,
            Outcome::Fail);
  CheckResult r = JudgeFlashAttention(
      Spec("flash_attention"),
      Attention({{"status", "error"}, {"error_type", "ImportError"}, {"error", "flash_attn_2_cuda.so: undefined symbol: _ZN3c10"}},
                {{"status", "ran"}, {"max_abs_err", 0.004}}));
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("undefined symbol"), std::string::npos);
  EXPECT_NE(r.hint.en.find("reinstall"), std::string::npos) << r.hint.en;
}

TEST(JudgeFlashAttention, NothingRanIsASkip) {
  CheckResult r = JudgeFlashAttention(
      Spec("flash_attention"),
      Attention({{"status", "skip"}, {"reason", "package_missing"}, {"package", "flash-attn"}},
                {{"status", "skip"}, {"reason", "torch_too_old"}, {"needed", "2.0"}, {"have", "1.13.1"}}));
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_NE(r.reason.en.find("needs PyTorch 2.0 or newer"), std::string::npos) << r.reason.en;
}

TEST(JudgeFlashAttention, AMissingVariantFieldIsNamed) {
  CheckResult r = JudgeFlashAttention(Spec("flash_attention"),
                                      Attention({{"status", "ran"}}, {{"status", "ran"}, {"max_abs_err", 0.0}}));
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("'variants.flash_attn.max_abs_err'"), std::string::npos) << r.reason.en;
}

TEST(JudgeTorchCompile, ToleranceIsRelativeToTheOutput) {
  nlohmann::json j = {{"status", "ran"}, {"device", "cuda"}, {"compile_s", 12.0}, {"eager_ms", 1.0},
                      {"compiled_ms", 0.5}, {"speedup", 2.0}, {"max_abs_err", 2e-4}, {"max_abs_output", 4.0}};
  CheckResult r = JudgeTorchCompile(Spec("torch_compile"), j);
  EXPECT_EQ(r.outcome, Outcome::Pass);
  EXPECT_DOUBLE_EQ(r.Find("smoke.torch_compile.speedup_x")->value, 2.0);
  j["max_abs_err"] = 0.1;
  EXPECT_EQ(JudgeTorchCompile(Spec("torch_compile"), j).outcome, Outcome::Fail);
}

TEST(JudgeTriton, ComparesWithTorch) {
  nlohmann::json j = {{"status", "ran"}, {"triton_version", "3.1.0"}, {"compile_s", 0.8}, {"max_abs_err", 1e-7},
                      {"numel", 1048576}};
  EXPECT_EQ(JudgeTriton(Spec("triton"), j).outcome, Outcome::Pass);
  j["max_abs_err"] = 0.5;
  EXPECT_EQ(JudgeTriton(Spec("triton"), j).outcome, Outcome::Fail);
}

TEST(JudgeUnsloth, AnUnsupportedGpuIsAWarning) {
  nlohmann::json j = {{"status", "ran"}, {"version", "2025.1"}, {"device_name", "Tesla P100"}, {"cc", "6.0"},
                      {"gpu_supported", false}, {"import_s", 3.0}};
  EXPECT_EQ(JudgeUnsloth(Spec("unsloth"), j).outcome, Outcome::Warn);
  j["gpu_supported"] = true;
  EXPECT_EQ(JudgeUnsloth(Spec("unsloth"), j).outcome, Outcome::Pass);
}

}  // namespace
}  // namespace labcheck::smoke

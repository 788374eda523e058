// vLLM serving arithmetic.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "calc/byte_units.h"
#include "calc/serving.h"
#include "catalog_model.h"

namespace labcheck::calc {
namespace {

using testing::CatalogModel;

TEST(ServingTest, HeadsMustDivideByTheTensorParallelDegree) {
  // Qwen3-14B has 40 heads: tp 3 is impossible.
  ServeSettings s;
  s.gpus = 4;
  s.gpu_memory_gib = 80;
  const ServePlan plan = PlanServing(CatalogModel("qwen3-14b"), s, CalcConstants::Builtin());
  ASSERT_EQ(plan.options.size(), 4u);
  EXPECT_FALSE(plan.options[2].heads_divide);
  EXPECT_FALSE(plan.options[2].fits);
  EXPECT_EQ(plan.chosen_tp, 1);
}

TEST(ServingTest, KvRoomIsBudgetMinusWeightsActivationsAndNonTorch) {
  ServeSettings s;
  s.gpus = 1;
  s.gpu_memory_gib = 80;
  s.profile = ChooseVllmProfile(*ParseVllmVersion("0.11.0"));
  const CalcConstants& k = CalcConstants::Builtin();
  const ServePlan plan = PlanServing(CatalogModel("llama-3.1-8b"), s, k);
  const TpOption& o = plan.options[0];
  EXPECT_DOUBLE_EQ(o.budget_per_gpu, 0.9 * 80 * kBytesPerGiB);
  EXPECT_DOUBLE_EQ(o.weights_per_gpu, 2 * 8'030'261'248.0);
  EXPECT_DOUBLE_EQ(o.kv_room_per_gpu, o.budget_per_gpu - o.weights_per_gpu - *o.activation_peak_per_gpu - o.non_torch_per_gpu);
  // 131,072 bytes per token (see KvCacheTest), rounded down to whole 16-token blocks.
  EXPECT_EQ(*o.kv_tokens, static_cast<int64_t>(o.kv_room_per_gpu / 131'072) / 16 * 16);
  EXPECT_EQ(*o.kv_tokens % 16, 0);
  // An 80 GiB card gets vLLM's large batch defaults; the sampler pass over 1024 rows is the peak:
  // 39 bytes x 128,256 x 1024 under vLLM 0.11's sorting sampler.
  EXPECT_EQ(plan.max_num_seqs, 1024);
  EXPECT_EQ(plan.max_num_batched_tokens, 8192);
  EXPECT_DOUBLE_EQ(*o.activation_peak_per_gpu, 39.0 * 128256 * 1024);
  EXPECT_NE(plan.vllm_command.find("vllm serve meta-llama/Llama-3.1-8B"), std::string::npos);
  EXPECT_NE(plan.vllm_command.find("--max-model-len 131072"), std::string::npos);
}

TEST(ServingTest, QuantisedWeightsKeepEmbeddingsInBf16) {
  // Llama 3.1 8B int4: 6,979,321,856 linear weights * 4.15625 / 8 + 1,050,939,392 other * 2 bytes.
  const double expected = 6'979'321'856.0 * 4.15625 / 8 + 1'050'939'392.0 * 2;
  EXPECT_DOUBLE_EQ(ServingWeightBytes(CatalogModel("llama-3.1-8b"), ServeQuant::Int4, CalcConstants::Builtin()), expected);
}

TEST(ServingTest, SmallCardsAndA100sGetTheSmallBatchDefaults) {
  const CalcConstants& k = CalcConstants::Builtin();
  EXPECT_EQ(VllmBatchDefaults(32, "", k).max_num_seqs, 256);
  EXPECT_EQ(VllmBatchDefaults(80, "NVIDIA A100-SXM4-80GB", k).max_num_batched_tokens, 2048);
  EXPECT_EQ(VllmBatchDefaults(80, "NVIDIA H100 80GB HBM3", k).max_num_batched_tokens, 8192);
}

TEST(ServingTest, WhenTheLengthDoesNotFitTheLongestThatDoesIsSuggested) {
  // Llama 3.1 8B on one 24 GiB card at its 131072 tokens: 16 GiB of KV needed, about 4 left.
  ServeSettings s;
  s.gpus = 1;
  s.gpu_memory_gib = 24;
  const ServePlan plan = PlanServing(CatalogModel("llama-3.1-8b"), s, CalcConstants::Builtin());
  ASSERT_FALSE(plan.chosen_tp.has_value());
  ASSERT_TRUE(plan.suggested_max_model_len.has_value());
  const TpOption& o = plan.options[0];
  EXPECT_EQ(*plan.suggested_max_model_len % 16, 0);
  EXPECT_LE(*plan.suggested_max_model_len * 131'072.0, o.kv_room_per_gpu);
  EXPECT_GT((*plan.suggested_max_model_len + 16) * 131'072.0, o.kv_room_per_gpu);
  EXPECT_EQ(plan.vllm_command.find("--max-model-len 131072"), std::string::npos);
  EXPECT_NE(plan.vllm_command.find(fmt::format("--max-model-len {}", *plan.suggested_max_model_len)), std::string::npos);
}

// Issue 52: the lesson's "70B in 4 bits on 2–4 cards". On the course's 4 × 32 GiB, TP 4 holds the
// model's 131072 tokens and TP 2 does not, but it holds a shorter length: the one vLLM's error at
// TP 2 names. vLLM (vllm/v1/core/kv_cache_utils.py, estimate_max_model_len) bisects for the longest
// length whose request fits the room, a full-attention layer taking cdiv(len, 16) blocks of 16
// tokens (vllm/v1/kv_cache_interface.py, FullAttentionSpec.max_memory_usage_bytes). By hand: 80
// layers × K and V × 4 of the 8 KV heads × 128 × 2 bytes = 163,840 bytes per token per card at TP 2.
TEST(ServingTest, ADegreeThatFailsOnTheLengthAloneGetsTheLengthItHolds) {
  ServeSettings s;
  s.gpus = 4;
  s.gpu_memory_gib = 32;
  s.quant = ServeQuant::Int4;
  s.utilization = s.profile.rule.default_utilization;  // 0.92, as serve takes it without --utilization
  const ServePlan plan = PlanServing(CatalogModel("llama-3.1-70b"), s, CalcConstants::Builtin());
  ASSERT_EQ(plan.chosen_tp, 4);
  const TpOption& tp2 = plan.options[1];
  ASSERT_FALSE(tp2.fits);
  ASSERT_TRUE(tp2.longest_fitting_len.has_value());
  const double token_bytes = 80.0 * 2 * 4 * 128 * 2;
  const int64_t blocks = static_cast<int64_t>(tp2.kv_room_per_gpu / (16 * token_bytes));
  EXPECT_EQ(*tp2.longest_fitting_len, blocks * 16);
  EXPECT_EQ(*tp2.longest_fitting_len, 48432);  // the figure the issue quotes, with vLLM 0.29.0's rule
  // TP 1 has no room at all (the weights alone pass 32 GiB) and TP 3 does not divide the 64 heads:
  // neither fails on the length alone, so TP 2 is the one shorter length offered.
  ASSERT_EQ(plan.shorter_lengths.size(), 1u);
  EXPECT_EQ(plan.shorter_lengths[0].tp, 2);
  EXPECT_EQ(plan.shorter_lengths[0].max_model_len, 48432);
  EXPECT_NE(plan.shorter_lengths[0].vllm_command.find("--tensor-parallel-size 2 "), std::string::npos);
  EXPECT_NE(plan.shorter_lengths[0].vllm_command.find("--max-model-len 48432"), std::string::npos);
  EXPECT_NE(plan.vllm_command.find("--tensor-parallel-size 4 "), std::string::npos);
  EXPECT_NE(plan.vllm_command.find("--max-model-len 131072"), std::string::npos);
}

// When nothing fits, the widest degree's length is the verdict's command; a narrower degree that
// fails on the length alone is offered beside it, never the widest twice.
TEST(ServingTest, BesideTheSuggestedLengthTheNarrowerDegreesAreOffered) {
  ServeSettings s;
  s.gpus = 2;
  s.gpu_memory_gib = 20;
  s.utilization = s.profile.rule.default_utilization;
  const ServePlan plan = PlanServing(CatalogModel("llama-3.1-8b"), s, CalcConstants::Builtin());
  ASSERT_FALSE(plan.chosen_tp.has_value());
  ASSERT_EQ(plan.suggested_tp, 2);
  ASSERT_EQ(plan.shorter_lengths.size(), 1u);
  EXPECT_EQ(plan.shorter_lengths[0].tp, 1);
  EXPECT_LT(plan.shorter_lengths[0].max_model_len, *plan.suggested_max_model_len);
}

TEST(ServingTest, TheVersionPicksTheSamplerAndNonTorchMemory) {
  ServeSettings s;
  s.gpus = 2;
  s.gpu_memory_gib = 80;
  s.profile = ChooseVllmProfile(*ParseVllmVersion("0.19.0"));
  const ServePlan plan = PlanServing(CatalogModel("llama-3.1-8b"), s, CalcConstants::Builtin());
  // 0.17 on: 15.4 bytes per row and entry; 0.18 on: 0.25 GiB outside PyTorch, 2.06 at TP > 1.
  EXPECT_DOUBLE_EQ(*plan.options[0].activation_peak_per_gpu, 15.4 * 128256 * 1024);
  EXPECT_DOUBLE_EQ(plan.options[0].non_torch_per_gpu, 0.25 * kBytesPerGiB);
  EXPECT_DOUBLE_EQ(plan.options[1].non_torch_per_gpu, 2.06 * kBytesPerGiB);
}

TEST(ServingTest, PaddingLayersOfTheHybridManagerTakePoolMemory) {
  // Gemma 3 27B under 0.19: 70 slots of 16 KV heads x 128 x 2 x 2 bytes per token.
  ServeSettings s;
  s.gpus = 1;
  s.gpu_memory_gib = 80;
  const ServePlan plan = PlanServing(CatalogModel("gemma-3-27b"), s, CalcConstants::Builtin());
  EXPECT_EQ(plan.kv_slots.slots, 70);
  const TpOption& o = plan.options[0];
  EXPECT_EQ(*o.kv_tokens, static_cast<int64_t>(o.kv_room_per_gpu / (70 * 8192.0)) / 16 * 16);
}

TEST(ServingTest, TensorParallelMustSplitOrReplicateTheKvHeads) {
  const Architecture& llama = ModelCatalog::Builtin().Find("llama-3.1-8b")->arch;  // 32 heads, 8 KV heads
  EXPECT_FALSE(CheckTensorParallel(llama, 3, Lang::En).ok());
  EXPECT_TRUE(CheckTensorParallel(llama, 4, Lang::En).ok());
  EXPECT_TRUE(CheckTensorParallel(llama, 16, Lang::En).ok());  // 2 GPUs per KV head
  EXPECT_FALSE(CheckTensorParallel(llama, 64, Lang::En).ok()); // 64 does not divide 32 heads
}

}  // namespace
}  // namespace labcheck::calc

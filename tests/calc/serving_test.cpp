// vLLM serving arithmetic.
#include <gtest/gtest.h>

#include "calc/byte_units.h"
#include "calc/serving.h"

namespace labcheck::calc {
namespace {

ModelInput Model(const std::string& name) {
  return ResolveModel(name, ModelCatalog::Builtin(), [](const std::string&) { return std::nullopt; }).value();
}

TEST(ServingTest, HeadsMustDivideByTheTensorParallelDegree) {
  // Qwen3-14B has 40 heads: tp 3 is impossible.
  ServeSettings s;
  s.gpus = 4;
  s.gpu_memory_gib = 80;
  const ServePlan plan = PlanServing(Model("qwen3-14b"), s, CalcConstants::Builtin());
  ASSERT_EQ(plan.options.size(), 4u);
  EXPECT_FALSE(plan.options[2].heads_divide);
  EXPECT_FALSE(plan.options[2].fits);
  EXPECT_EQ(plan.chosen_tp, 1);
}

TEST(ServingTest, KvRoomIsBudgetMinusWeightsActivationsAndNonTorch) {
  ServeSettings s;
  s.gpus = 1;
  s.gpu_memory_gib = 80;
  const CalcConstants& k = CalcConstants::Builtin();
  const ServePlan plan = PlanServing(Model("llama-3.1-8b"), s, k);
  const TpOption& o = plan.options[0];
  EXPECT_DOUBLE_EQ(o.budget_per_gpu, 0.9 * 80 * kBytesPerGiB);
  EXPECT_DOUBLE_EQ(o.weights_per_gpu, 2 * 8'030'261'248.0);
  EXPECT_DOUBLE_EQ(o.kv_room_per_gpu, o.budget_per_gpu - o.weights_per_gpu - *o.activation_peak_per_gpu - o.non_torch_per_gpu);
  // 131,072 bytes per token (see KvCacheTest).
  EXPECT_EQ(*o.kv_tokens, static_cast<int64_t>(o.kv_room_per_gpu / 131'072));
  EXPECT_NE(plan.vllm_command.find("vllm serve meta-llama/Llama-3.1-8B"), std::string::npos);
  EXPECT_NE(plan.vllm_command.find("--max-model-len 131072"), std::string::npos);
}

TEST(ServingTest, QuantisedWeightsKeepEmbeddingsInBf16) {
  // Llama 3.1 8B int4: 6,979,321,856 linear weights * 4.15625 / 8 + 1,050,939,392 other * 2 bytes.
  const double expected = 6'979'321'856.0 * 4.15625 / 8 + 1'050'939'392.0 * 2;
  EXPECT_DOUBLE_EQ(ServingWeightBytes(Model("llama-3.1-8b"), ServeQuant::Int4, CalcConstants::Builtin()), expected);
}

}  // namespace
}  // namespace labcheck::calc

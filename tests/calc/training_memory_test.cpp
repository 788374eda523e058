// The training-memory formulas against figures worked out by hand (derivations in the comments).
#include <gtest/gtest.h>

#include "calc/activation_memory.h"
#include "calc/model_catalog.h"
#include "calc/training_memory.h"

namespace labcheck::calc {
namespace {

const Architecture& Llama8b() { return ModelCatalog::Builtin().Find("llama-3.1-8b")->arch; }

ModelInput Catalog(const std::string& name) {
  auto model = ResolveModel(name, ModelCatalog::Builtin(), [](const std::string&) { return std::nullopt; });
  return model.value();
}

double Bytes(const TrainingMemory& m, const std::string& id) { return m.Find(id)->bytes.value(); }

TEST(ActivationMemoryTest, Llama8bLayerByHand) {
  // h = 4096, q = 4096, kv = 1024, MLP 14336, 32 heads, no q/k norms, 2 RMSNorms.
  // norms 2 * (4 + 2) * 4096 = 49,152
  // attention: input 2*4096 = 8,192; RoPE 2*2*(4096+1024) = 20,480; q,k,v 2*(4096+2048) = 12,288;
  //            output 2*4096 = 8,192; log-sum-exp 4*32 = 128 -> 49,280
  // MLP: input 8,192 + 4 tensors * 2 bytes * 14336 = 114,688 -> 122,880
  const LayerActivationBytes layer = LayerActivationsPerToken(Llama8b(), 0);
  EXPECT_DOUBLE_EQ(layer.norms, 49'152);
  EXPECT_DOUBLE_EQ(layer.attention, 49'280);
  EXPECT_DOUBLE_EQ(layer.mlp, 122'880);
  EXPECT_DOUBLE_EQ(layer.lora, 0);
  EXPECT_DOUBLE_EQ(layer.total(), 221'312);
}

TEST(ActivationMemoryTest, CheckpointingKeepsLayerInputsAndOneLayer) {
  // Without: (32 * 221,312 + final norm 6*4096 + lm_head input 2*4096) * 2048 = 7,114,752 * 2048.
  EXPECT_DOUBLE_EQ(ActivationBytes(Llama8b(), 2048, false, 0), 7'114'752.0 * 2048);
  // With: (32 layer inputs * 2*4096 + one layer 221,312 + 32,768) * 2048 = 516,224 * 2048.
  EXPECT_DOUBLE_EQ(ActivationBytes(Llama8b(), 2048, true, 0), 516'224.0 * 2048);
}

TEST(ActivationMemoryTest, LoraAddsFp32InputCopies) {
  // q, k, v read h, o reads q, gate and up read h, down reads 14336: 4 * (3*4096 + 4096 + 2*4096 + 14336)
  // = 4 * 38,912 = 155,648; plus FP32 rank-16 outputs of 7 adapters 4*16*7 = 448.
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(Llama8b(), 16).lora, 156'096);
}

TEST(ActivationMemoryTest, LogitsAre14BytesPerVocabularyEntry) {
  EXPECT_DOUBLE_EQ(LogitsBytes(Llama8b(), 2048), 14.0 * 128256 * 2048);
}

TEST(TrainingMemoryTest, FullFineTuningBf16ByHand) {
  // N = 8,030,261,248. Weights 2N, AdamW states 4N, gradients 2N, foreach step buffer 2N.
  // Forward phase: activations 14,571,012,096 + logits 3,677,380,608 = 18.2 GB < step phase 4N = 32.1 GB,
  // so the peak is 2N + 4N + 4N = 10N = 80,302,612,480 bytes.
  TrainingSettings s;
  const TrainingMemory m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  const double n = 8'030'261'248.0;
  EXPECT_DOUBLE_EQ(Bytes(m, "weights"), 2 * n);
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 4 * n);
  EXPECT_DOUBLE_EQ(Bytes(m, "gradients"), 2 * n);
  ASSERT_TRUE(m.peak_allocated_bytes.has_value());
  EXPECT_DOUBLE_EQ(*m.peak_allocated_bytes, 10 * n);
  const CalcConstants& k = CalcConstants::Builtin();
  EXPECT_DOUBLE_EQ(*m.peak_total_bytes, 10 * n * (1 + k.allocator_reserve_fraction) + k.cuda_context_gib * (1 << 30));
}

TEST(TrainingMemoryTest, MixedPrecisionAnd8BitAdam) {
  TrainingSettings s;
  s.precision = Precision::Mixed;
  const double n = 8'030'261'248.0;
  TrainingMemory m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(m, "weights"), 4 * n);           // FP32 master weights
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 8 * n);  // two FP32 states
  s.optimizer = Optimizer::AdamW8bit;
  m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 2 * n);
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_step_buffer"), 0);
  s.optimizer = Optimizer::Sgd;
  m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 0);
}

TEST(TrainingMemoryTest, LoraTrainsOnlyTheAdaptersInFp32) {
  TrainingSettings s;
  s.method = Method::Lora;
  const TrainingMemory m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  const double adapters = 41'943'040;  // see ParamCountTest.LoraParamsByHand
  EXPECT_EQ(m.trainable_params, 41'943'040);
  EXPECT_DOUBLE_EQ(Bytes(m, "weights"), 2 * 8'030'261'248.0);
  EXPECT_DOUBLE_EQ(Bytes(m, "adapters"), 4 * adapters);
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 8 * adapters);
}

TEST(TrainingMemoryTest, ShardingDividesStatesButNotActivations) {
  TrainingSettings one, four;
  four.gpus = 4;
  const ModelInput model = Catalog("qwen3-8b");
  const TrainingMemory a = EstimateTrainingMemory(model, one, CalcConstants::Builtin());
  const TrainingMemory b = EstimateTrainingMemory(model, four, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(b, "weights"), Bytes(a, "weights") / 4);
  EXPECT_DOUBLE_EQ(Bytes(b, "optimizer_states"), Bytes(a, "optimizer_states") / 4);
  EXPECT_DOUBLE_EQ(Bytes(b, "activations"), Bytes(a, "activations"));
  EXPECT_NE(b.Find("fsdp_gathered"), nullptr);
}

TEST(TrainingMemoryTest, BareSizeLeavesArchitecturePartsUnknown) {
  TrainingSettings s;
  s.method = Method::Qlora;
  auto model = ResolveModel("7B", ModelCatalog::Builtin(), [](const std::string&) { return std::nullopt; });
  const TrainingMemory m = EstimateTrainingMemory(model.value(), s, CalcConstants::Builtin());
  EXPECT_FALSE(m.Find("activations")->bytes.has_value());
  EXPECT_FALSE(m.Find("adapters")->bytes.has_value());
  EXPECT_FALSE(m.peak_allocated_bytes.has_value());
  EXPECT_NEAR(*m.Find("weights")->bytes, 7e9 * 4.126953125 / 8, 1);
}

}  // namespace
}  // namespace labcheck::calc

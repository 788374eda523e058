// The figures of the two seed documents must come out of the calculators as the documents say.
#include <gtest/gtest.h>

#include "calc/byte_units.h"
#include "calc/gpu_fit.h"
#include "calc/rule_of_thumb.h"
#include "calc/serving.h"
#include "calc/training_memory.h"
#include "catalog_model.h"

namespace labcheck::calc {
namespace {

using testing::CatalogModel;

TEST(LessonTest, NF4WithDoubleQuantisationIs4Point127Bits) {
  // 4 + 8/64 + 32/(64*256) = 4.126953125 (QLoRA paper, section 3).
  EXPECT_DOUBLE_EQ(CalcConstants::Builtin().nf4_bits, 4.126953125);
}

TEST(LessonTest, SevenBFullFineTuningIs56GBByTheRule) {
  // Lesson 3: 7 * 2 * 4 = 56 GB.
  const ModelInput model = CatalogModel("7B");
  TrainingSettings s;
  const TrainingMemory m = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  const RuleOfThumb rule = LessonRuleOfThumb(model, s, m, CalcConstants::Builtin());
  ASSERT_TRUE(rule.bytes.has_value());
  EXPECT_DOUBLE_EQ(ToGB(*rule.bytes), 56.0);
  // "Even an A100 (40GB) is not enough."
  EXPECT_GT(*rule.bytes, 40 * kBytesPerGiB);
}

double Nf4WeightsGB(const std::string& name) {
  TrainingSettings s;
  s.method = Method::Qlora;
  return ToGB(*EstimateTrainingMemory(CatalogModel(name), s, CalcConstants::Builtin()).Find("weights")->bytes);
}

TEST(LessonTest, QloraWeightSizesOfTheLessonTable) {
  // Llama 3 8B: 6.98 B linear weights * 4.127/8 + 1.05 B embedding/lm_head * 2 = 5.70 GB ("~5.5 GB").
  EXPECT_NEAR(Nf4WeightsGB("llama-3-8b"), 5.5, 0.3);
  // Mistral 7B: 3.60 GB + 0.54 GB (32768-token vocabulary) = 4.14 GB; the lesson rounds to "~5 GB".
  EXPECT_GT(Nf4WeightsGB("mistral-7b"), 4.0);
  EXPECT_LT(Nf4WeightsGB("mistral-7b"), 5.5);
  // Llama 3 70B: 68.45 B * 4.127/8 + 2.10 B * 2 = 39.5 GB ("~40 GB").
  EXPECT_NEAR(Nf4WeightsGB("llama-3-70b"), 40, 1.5);
}

std::optional<int> CardsOfMemory(const std::string& model_name, double memory_gib) {
  const ModelInput model = CatalogModel(model_name);
  TrainingSettings s;
  s.method = Method::Qlora;
  s.checkpointing = true;
  s.sharding = Sharding::Fsdp;  // the lesson's "2x A6000" splits the weights over the cards
  reference::GpuSpec card;
  card.id = "test";
  card.memory_gib = memory_gib;
  auto need = [&](int n) {
    TrainingSettings split = s;
    split.gpus = n;
    return *EstimateTrainingMemory(model, split, CalcConstants::Builtin()).peak_total_bytes;
  };
  return FitOnGpus({card}, need).front().count;
}

TEST(LessonTest, QloraCardsOfTheLessonTable) {
  // Llama 3 8B and Mistral 7B: one 24 GB card (RTX 3090/4090).
  EXPECT_EQ(CardsOfMemory("llama-3-8b", 24), 1);
  EXPECT_EQ(CardsOfMemory("mistral-7b", 24), 1);
  // Llama 3 70B: not one 48 GB card, but two (2x A6000); one 80 GB card is the lesson's 2x A100 halved.
  EXPECT_EQ(CardsOfMemory("llama-3-70b", 48), 2);
  EXPECT_EQ(CardsOfMemory("llama-3-70b", 24), 4);
}

// Seed 000, "how much memory models take (weights only)": params x bytes per parameter.
TEST(SeedTableTest, WeightSizes) {
  const CalcConstants& k = CalcConstants::Builtin();
  struct Row { const char* size; double bf16_gb, int8_gb, int4_gb; };
  // The seed's int4 column: 0.25, ~4, ~7, ~16, ~35-40 GB; AWQ/GPTQ at 4.156 bits lands 4% above 4.0.
  for (const Row& row : {Row{"0.5B", 1, 0.5, 0.25}, Row{"8B", 16, 8, 4}, Row{"14B", 28, 14, 7}, Row{"32B", 64, 32, 16}, Row{"70B", 140, 70, 37.5}}) {
    const ModelInput model = CatalogModel(row.size);
    EXPECT_DOUBLE_EQ(ToGB(ServingWeightBytes(model, ServeQuant::Bf16, k)), row.bf16_gb) << row.size;
    EXPECT_DOUBLE_EQ(ToGB(ServingWeightBytes(model, ServeQuant::Int8, k)), row.int8_gb) << row.size;
    EXPECT_NEAR(ToGB(ServingWeightBytes(model, ServeQuant::Int4, k)), row.int4_gb, 0.07 * row.int4_gb) << row.size;
  }
}

std::optional<int> TpOnCourseMachine(const char* size, ServeQuant quant) {
  ServeSettings s;
  s.gpus = 4;
  s.gpu_memory_gib = 32;
  s.quant = quant;
  return PlanServing(CatalogModel(size), s, CalcConstants::Builtin()).chosen_tp;
}

TEST(SeedTableTest, WhatRunsOnFourCardsOf32GB) {
  EXPECT_EQ(TpOnCourseMachine("0.5B", ServeQuant::Bf16), 1);   // "easily"
  EXPECT_EQ(TpOnCourseMachine("8B", ServeQuant::Bf16), 1);     // "one card: inference and LoRA"
  EXPECT_EQ(TpOnCourseMachine("14B", ServeQuant::Int8), 1);    // "one card in 8/4 bits,
  EXPECT_EQ(TpOnCourseMachine("14B", ServeQuant::Int4), 1);
  EXPECT_EQ(TpOnCourseMachine("14B", ServeQuant::Bf16), 2);    //  in BF16 two"
  EXPECT_EQ(TpOnCourseMachine("32B", ServeQuant::Bf16), 4);    // "4 cards in BF16,
  EXPECT_EQ(TpOnCourseMachine("32B", ServeQuant::Int4), 1);    //  one or two in 4 bits"
  EXPECT_EQ(TpOnCourseMachine("70B", ServeQuant::Int4), 2);    // "in 4 bits on 2-4 cards"
  EXPECT_EQ(TpOnCourseMachine("70B", ServeQuant::Bf16), std::nullopt);
}

TEST(SeedTableTest, QwenModelsOfTheCourseOnFourCards) {
  // Lab page, stage 7: "32B in BF16 ... on 4 cards"; stage 8: Qwen3-30B-A3B in 4 bits.
  ServeSettings s;
  s.gpus = 4;
  s.gpu_memory_gib = 32;
  EXPECT_EQ(PlanServing(CatalogModel("qwen3-32b"), s, CalcConstants::Builtin()).chosen_tp, 4);
  s.quant = ServeQuant::Int4;
  EXPECT_EQ(PlanServing(CatalogModel("qwen3-30b-a3b"), s, CalcConstants::Builtin()).chosen_tp, 1);
}

}  // namespace
}  // namespace labcheck::calc

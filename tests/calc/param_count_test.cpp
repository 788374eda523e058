// Parameter counts derived from the architecture against the totals the authors published.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "calc/model_catalog.h"
#include "calc/param_count.h"

namespace labcheck::calc {
namespace {

// "8.2B" -> 8.2e9 and its rounding step (0.05e9: the figure could be 8.15–8.25 B); "3209M" -> 3.209e9, step 0.5e6.
struct Published {
  double value = 0;
  double half_step = 0;
};

Published ParsePublished(const std::string& text) {
  const double scale = text.back() == 'B' ? 1e9 : 1e6;
  const std::string digits = text.substr(0, text.size() - 1);
  const auto dot = digits.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1);
  return {std::stod(digits) * scale, 0.5 * std::pow(10.0, -decimals) * scale};
}

// Within 1 % of the published figure, or within its printed rounding (a card that says "1.7B" only
// promises 1.65–1.75 B, which is ±2.9 %).
void ExpectMatches(const std::string& model, const char* what, double derived, const std::string& published_text) {
  const Published published = ParsePublished(published_text);
  const double tolerance = std::max(0.01 * published.value, published.half_step);
  EXPECT_NEAR(derived, published.value, tolerance) << model << " " << what << ": derived " << derived
                                                   << " vs published " << published_text;
}

TEST(ParamCountTest, EveryCatalogModelMatchesItsPublishedTotals) {
  const ModelCatalog& catalog = ModelCatalog::Builtin();
  ASSERT_GE(catalog.models().size(), 15u);
  for (const CatalogModel& model : catalog.models()) {
    const ParamCounts counts = CountParams(model.arch);
    const auto& published = model.published_params;
    ASSERT_TRUE(published.contains("source")) << model.id;
    if (published.contains("total")) {
      ExpectMatches(model.id, "total", static_cast<double>(counts.total()), published["total"]);
    } else {
      // Gemma 3: the report gives the parts; their sum is the total.
      const double total = ParsePublished(published["vision_encoder"]).value + ParsePublished(published["embedding"]).value +
                           ParsePublished(published["non_embedding"]).value;
      EXPECT_NEAR(static_cast<double>(counts.total()), total, 0.01 * total) << model.id;
      ExpectMatches(model.id, "vision", static_cast<double>(counts.vision), published["vision_encoder"]);
    }
    if (published.contains("non_embedding")) {
      ExpectMatches(model.id, "non-embedding", static_cast<double>(counts.non_embedding()), published["non_embedding"]);
    }
    if (published.contains("active")) {
      // Qwen3-30B-A3B's card says "3.3B" activated; the derivation gives 3.353 B, so the card truncates
      // rather than rounds: check the figure's last digit, [3.3, 3.4) B.
      const Published active = ParsePublished(published["active"]);
      EXPECT_GE(static_cast<double>(counts.active()), active.value) << model.id;
      EXPECT_LT(static_cast<double>(counts.active()), active.value + 2 * active.half_step) << model.id;
    }
  }
}

TEST(ParamCountTest, Llama31_8bByHand) {
  // embed 128256*4096 = 525,336,576, untied lm_head the same;
  // per layer: q 4096*4096 + k,v 2*4096*1024 + o 4096*4096 = 41,943,040;
  //            MLP 3*4096*14336 = 176,160,768; norms 2*4096 = 8,192 -> 218,112,000; x32 = 6,979,584,000;
  // final norm 4096. Total 8,030,261,248 (the safetensors index of the published checkpoint: 16,060,522,496 bytes in BF16).
  const CatalogModel* model = ModelCatalog::Builtin().Find("llama-3.1-8b");
  ASSERT_NE(model, nullptr);
  const ParamCounts c = CountParams(model->arch);
  EXPECT_EQ(c.total(), 8'030'261'248);
  EXPECT_EQ(c.embedding, 525'336'576);
  EXPECT_EQ(c.lm_head, 525'336'576);
}

TEST(ParamCountTest, Qwen3MoeActiveParametersByHand) {
  // 48 layers; experts: 128 * 3*2048*768 = 603,979,776 per layer, 8 active = 37,748,736;
  // router 2048*128 = 262,144; attention 2*2048*4096 + 2*2048*512 = 18,874,368; norms 2*2048 + 2*128 = 4,352.
  // Active per layer 56,889,600 * 48 = 2,730,700,800, + embeddings 2*151936*2048 = 622,329,856 + final norm 2048.
  const CatalogModel* model = ModelCatalog::Builtin().Find("Qwen/Qwen3-30B-A3B");
  ASSERT_NE(model, nullptr);
  const ParamCounts c = CountParams(model->arch);
  EXPECT_EQ(c.active(), 3'353'032'704);
  EXPECT_EQ(c.total(), 30'532'122'624);
}

TEST(ParamCountTest, Gemma3_4bWithItsVisionTowerByHand) {
  // Text: per layer q 2560*2048 + k,v 2*2560*1024 + o 2048*2560 = 15,728,640; MLP 3*2560*10240 = 78,643,200;
  // 4 norms * 2560 + q/k norms 2*256 = 10,752 -> 94,382,592 * 34 = 3,209,008,128 (the report's 3,209M);
  // embedding 262208*2560 = 671,252,480 (tied) + final norm 2560.
  // SigLIP: patch conv 3*14*14*1152 + 1152 = 678,528; positions (896/14)^2*1152 = 4,718,592;
  // per layer 4*(1152^2+1152) + 2*1152*4304 + 4304 + 1152 + 4*1152 = 15,239,504 * 27 = 411,466,608; post norm 2304
  // -> 416,866,032 (the report's 417M). Projector 1152*2560 + 1152 = 2,950,272.
  const CatalogModel* model = ModelCatalog::Builtin().Find("google/gemma-3-4b-it");
  ASSERT_NE(model, nullptr);
  const ParamCounts c = CountParams(model->arch);
  EXPECT_EQ(c.non_embedding(), 3'209'008'128 + 2560);
  EXPECT_EQ(c.vision, 416'866'032);
  EXPECT_EQ(c.projector, 2'950'272);
  EXPECT_EQ(c.total(), 4'300'079'472);
}

TEST(ParamCountTest, TiedEmbeddingsAreCountedOnce) {
  // Qwen3-0.6B ties lm_head to the embedding: 151936*1024 = 155,582,464 once.
  const CatalogModel* model = ModelCatalog::Builtin().Find("qwen3-0.6b");
  ASSERT_NE(model, nullptr);
  const ParamCounts c = CountParams(model->arch);
  EXPECT_EQ(c.lm_head, 0);
  EXPECT_EQ(c.embedding, 155'582'464);
  EXPECT_EQ(c.total(), 596'049'920);
}

TEST(ParamCountTest, LoraParamsByHand) {
  // Llama 3.1 8B, rank 16, all linear layers per layer:
  // q 16*(4096+4096) + k,v 2*16*(4096+1024) + o 16*(4096+4096) = 425,984;
  // gate, up, down 3*16*(4096+14336) = 884,736 -> 1,310,720 per layer * 32 = 41,943,040.
  const CatalogModel* model = ModelCatalog::Builtin().Find("llama-3.1-8b");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(LoraParams(model->arch, 16), 41'943'040);
}

}  // namespace
}  // namespace labcheck::calc

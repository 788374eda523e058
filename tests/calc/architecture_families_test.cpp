// Architecture families read from published config.json copies (tests/calc/configs): parameter
// counts against the model cards, KV cache per token worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "calc/activation_memory.h"
#include "calc/byte_units.h"
#include "calc/checkpoint_weights.h"
#include "calc/hf_config.h"
#include "calc/kv_cache.h"
#include "calc/param_count.h"
#include "calc/serving.h"
#include "calc/vllm_profile.h"
#include "config_copies.h"

namespace labcheck::calc {
namespace {

// A card's "15.7B": the value and half its last digit.
struct Figure {
  double value = 0;
  double half_step = 0;
};

Figure ParseFigure(const std::string& text) {
  const double scale = text.back() == 'T' ? 1e12 : text.back() == 'B' ? 1e9 : 1e6;
  const std::string digits = text.substr(0, text.size() - 1);
  const auto dot = digits.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1);
  return {std::stod(digits) * scale, 0.5 * std::pow(10.0, -decimals) * scale};
}

TEST(ArchitectureFamiliesTest, ParameterCountsMatchTheCards) {
  const nlohmann::json cards = nlohmann::json::parse(ReadConfigText(PublishedConfigDir() + "cards.json"));
  int checked = 0;
  for (const auto& [name, card] : cards.items()) {
    if (name.front() == '_') continue;
    SCOPED_TRACE(name);
    ASSERT_TRUE(card.contains("config_source") && card.contains("card")) << "every config names its source";
    const Architecture arch = LoadPublishedConfig(name);
    const ParamCounts counts = CountParams(arch);
    // A config kept for serving cases only (its card states no count) has nothing to compare.
    if (!card.contains("total")) continue;
    // Total: within 1 % of the card (the brief's tolerance), or within the card's rounding.
    const Figure total = ParseFigure(card["total"]);
    EXPECT_NEAR(static_cast<double>(counts.total()), total.value, std::max(0.01 * total.value, total.half_step));
    // Activated parameters: the card's definition decides whether the input embedding (a lookup)
    // counts. Cards print the figure either rounded (DeepSeek-V3: 36.63 B -> "37B") or cut
    // (DeepSeek-V2-Lite: 2.451 B -> "2.4B", Qwen3-30B-A3B: 3.353 B -> "3.3B"), so the derived
    // figure must lie within [value - half a digit, value + one digit): either reading of the card.
    if (card.contains("active")) {
      const Figure active = ParseFigure(card["active"]);
      const double derived = static_cast<double>(counts.active()) -
                             (card.value("active_includes_input_embedding", true) ? 0.0 : static_cast<double>(counts.embedding)) -
                             (card.value("active_includes_vision", true) ? 0.0 : static_cast<double>(counts.active() - counts.active_text()));
      EXPECT_GE(derived, active.value - active.half_step) << "active " << derived;
      EXPECT_LT(derived, active.value + 2 * active.half_step) << "active " << derived;
    }
    // A quantised checkpoint's size on disk (GiB as the card prints it): 1 % or the card's rounding.
    if (card.contains("checkpoint_gib")) {
      const double card_gib = card["checkpoint_gib"];
      const double derived_gib = ToGiB(CountCheckpointWeights(counts, arch.quant).bytes);
      EXPECT_NEAR(derived_gib, card_gib, std::max(0.01 * card_gib, 0.05)) << "checkpoint size";
    }
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

TEST(ArchitectureFamiliesTest, DeepSeekV2LiteLatentAttentionByHand) {
  const Architecture arch = LoadPublishedConfig("deepseek-v2-lite");
  ASSERT_TRUE(arch.mla.enabled());
  EXPECT_EQ(arch.mla.q_lora_rank, 0);  // null: one q_proj
  // Per layer: q_proj 2048 x 16*192 = 6,291,456; kv_a 2048 x 576 = 1,179,648; kv_b 512 x 16*256 =
  // 2,097,152; o 16*128 x 2048 = 4,194,304 -> 13,762,560 x 27 = 371,589,120.
  const ParamCounts c = CountParams(arch);
  EXPECT_EQ(c.attention, 371'589'120);
  // Layer 0 dense (first_k_dense_replace 1): 3 x 2048 x 10944 = 67,239,936. Layers 1-26: 64 routed
  // experts of 3 x 2048 x 1408 = 8,650,752 and 2 shared ones as one MLP of 2816: 17,301,504.
  EXPECT_EQ(c.mlp, int64_t{67'239'936} + 26 * (int64_t{64} * 8'650'752 + 17'301'504));
  EXPECT_EQ(c.routed_experts, int64_t{26} * 64 * 8'650'752);
  EXPECT_EQ(c.router, 26 * 2048 * 64);
}

TEST(ArchitectureFamiliesTest, DeepSeekV3DenseFirstLayersAndScoreBias) {
  const Architecture arch = LoadPublishedConfig("deepseek-v3");
  EXPECT_FALSE(arch.IsMoeLayer(2));  // first_k_dense_replace 3: layers 0, 1, 2 dense
  EXPECT_TRUE(arch.IsMoeLayer(3));
  EXPECT_TRUE(arch.IsMoeLayer(60));
  const ParamCounts c = CountParams(arch);
  // 58 MoE layers, each router 7168 x 256 plus 256 e_score_correction_bias values.
  EXPECT_EQ(c.router, 58 * (7168 * 256 + 256));
}

TEST(ArchitectureFamiliesTest, MlaActivationsDecompressKAndVPerHeadAsTransformersTrains) {
  // DeepSeek-V2-Lite, full fine-tuning, SDPA, per layer and token (no q_lora_rank): input 2 x 2048 =
  // 4,096; kv_a_layernorm (4 + 2) x 512 = 3,072 and kv_b_proj's input 2 x 512 = 1,024; q and k at
  // 16 heads x 192 and v at 16 x 128: 2 x (3,072 + 3,072 + 2,048) = 16,384; log-sum-exp 4 x 16 = 64;
  // the output 2 x 2,048 = 4,096 and o_proj's copy 4,096 -> 32,832.
  const Architecture lite = LoadPublishedConfig("deepseek-v2-lite");
  TrainingSettings s;
  s.seq = 2048;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(lite, s).attention, 32'832);
  // Flash attention: transformers pads v (and so the output) to the q/k width 3,072:
  // 2 x (3,072 x 3) + 64 + 2 x 3,072 + 4,096 + 4,096 + 3,072 + 1,024 = 36,928.
  s.attention = Attention::Flash;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(lite, s).attention, 36'928);
  // DeepSeek-V3 adds q's low-rank path: q_a_layernorm (4 + 2) x 1536 and q_b_proj's input 2 x 1536.
  const Architecture v3 = LoadPublishedConfig("deepseek-v3");
  s.attention = Attention::Sdpa;
  const double heads = 128, qk = heads * 192, v = heads * 128;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(v3, s).attention,
                   2.0 * 7168 + 6.0 * 1536 + 2.0 * 1536 + 6.0 * 512 + 2.0 * 512 + 2 * (2 * qk + v) + 4 * heads + 2 * v + 2 * v);
}

TEST(ArchitectureFamiliesTest, MlaCachesTheLatentWholeOnEveryTensorParallelRank) {
  // (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes x 27 layers = 31,104 bytes per token,
  // against 2 x 16 heads x 192 x 2 x 27 = 331,776 if K and V were cached per head.
  const Architecture lite = LoadPublishedConfig("deepseek-v2-lite");
  const KvCache one = ComputeKvCache(lite, {1024, 1, 2, 1});
  EXPECT_TRUE(one.latent);
  EXPECT_DOUBLE_EQ(one.bytes_per_token_per_gpu, 31'104);
  const KvCache four = ComputeKvCache(lite, {1024, 1, 2, 4});
  EXPECT_DOUBLE_EQ(four.bytes_per_token_per_gpu, 31'104);  // not divided by tp
  EXPECT_DOUBLE_EQ(four.total_bytes_all_gpus, 4 * 31'104.0 * 1024);
  // DeepSeek-V3: 576 x 61 layers = 35,136 values: 70,272 bytes in BF16, 35,136 in FP8.
  const Architecture v3 = LoadPublishedConfig("deepseek-v3");
  EXPECT_DOUBLE_EQ(ComputeKvCache(v3, {1, 1, 2, 8}).bytes_per_token_per_gpu, 70'272);
  EXPECT_DOUBLE_EQ(ComputeKvCache(v3, {1, 1, 1, 8}).bytes_per_token_per_gpu, 35'136);
}

TEST(ArchitectureFamiliesTest, GptOssAlternatesWindowedAndFullLayers) {
  const Architecture arch = LoadPublishedConfig("gpt-oss-20b");
  EXPECT_EQ(arch.SlidingLayerCount(), 12);
  EXPECT_EQ(arch.window_per_layer[0], 128);  // layer_types starts with sliding_attention
  EXPECT_EQ(arch.window_per_layer[1], 0);
  // Per layer and token 2 x 8 KV heads x 64 x 2 bytes = 2,048. At 8,192 tokens the 12 full layers
  // hold all of them and the 12 windowed ones 128: 12 x 2,048 x (8,192 + 128) = 204,472,320.
  const KvCache kv = ComputeKvCache(arch, {8192, 1, 2, 1});
  EXPECT_DOUBLE_EQ(kv.bytes_per_token_per_gpu, 24 * 2048);
  EXPECT_DOUBLE_EQ(kv.sequence_bytes_per_gpu, 204'472'320);
  // TP 2 splits the 8 KV heads: half of it.
  EXPECT_DOUBLE_EQ(ComputeKvCache(arch, {8192, 1, 2, 2}).sequence_bytes_per_gpu, 204'472'320 / 2);
}

TEST(ArchitectureFamiliesTest, GptOssQuantisesOnlyTheExpertsInMxfp4) {
  const Architecture arch = LoadPublishedConfig("gpt-oss-20b");
  ASSERT_EQ(arch.quant.method, QuantMethod::Mxfp4);
  EXPECT_TRUE(arch.quant.experts_only);
  EXPECT_DOUBLE_EQ(arch.quant.EffectiveBits(), 4.25);  // E2M1 + one 8-bit scale per 32
  const ParamCounts c = CountParams(arch);
  const CheckpointWeights w = CountCheckpointWeights(c, arch.quant);
  EXPECT_EQ(w.quantized_params, c.routed_experts);
  EXPECT_EQ(w.quantized_params + w.bf16_params, c.total());
}

TEST(ArchitectureFamiliesTest, DeepSeekV3IsFp8InBlocksOf128) {
  const Architecture arch = LoadPublishedConfig("deepseek-v3");
  ASSERT_EQ(arch.quant.method, QuantMethod::Fp8);
  // One FP32 scale per 128 x 128 block: 8 + 32 / 16384 bits.
  EXPECT_DOUBLE_EQ(arch.quant.EffectiveBits(), 8 + 32.0 / 16384);
  const ParamCounts c = CountParams(arch);
  // Attention and every MLP in FP8; embeddings, lm_head, norms and router in BF16.
  EXPECT_EQ(CountCheckpointWeights(c, arch.quant).quantized_params, c.attention + c.mlp);
  EXPECT_EQ(arch.mtp_layers, 1);
}

TEST(ArchitectureFamiliesTest, JambaMambaLayersKeepAStatePerSequence) {
  const Architecture arch = LoadPublishedConfig("jamba-v0.1");
  // attn_layer_period 8, offset 4: attention in layers 4, 12, 20, 28; Mamba in the other 28.
  EXPECT_EQ(arch.mamba.count(), 28);
  EXPECT_FALSE(arch.mamba.IsMamba(4));
  EXPECT_TRUE(arch.mamba.IsMamba(5));
  // expert_layer_period 2, offset 1: odd layers have 16 experts.
  EXPECT_TRUE(arch.IsMoeLayer(1));
  EXPECT_FALSE(arch.IsMoeLayer(2));
  // Mixer: in_proj 4096 x 16384 = 67,108,864; conv 8192 x 4 + 8192 = 40,960; x_proj 8192 x (256 + 32)
  // = 2,359,296; dt_proj 256 x 8192 + 8192 = 2,105,344; A_log 8192 x 16 = 131,072; D 8,192;
  // out_proj 8192 x 4096 = 33,554,432 -> 105,308,160 per layer.
  EXPECT_EQ(CountParams(arch).mamba, int64_t{28} * 105'308'160);
  // KV only in the 4 attention layers: 4 x 2 x 8 x 128 x 2 bytes = 16,384 per token. Each Mamba
  // layer keeps (4 - 1) x 8192 + 8192 x 16 = 155,648 values: 28 x 155,648 x 2 = 8,716,288 bytes per
  // sequence whatever its length.
  const KvCache kv = ComputeKvCache(arch, {4096, 1, 2, 1});
  EXPECT_DOUBLE_EQ(kv.bytes_per_token_per_gpu, 16'384);
  EXPECT_DOUBLE_EQ(kv.state_bytes_per_sequence_per_gpu, 8'716'288);
  EXPECT_DOUBLE_EQ(kv.sequence_bytes_per_gpu, 16'384.0 * 4096 + 8'716'288);
  EXPECT_DOUBLE_EQ(ComputeKvCache(arch, {4096, 1, 2, 2}).state_bytes_per_sequence_per_gpu, 8'716'288 / 2);
}

TEST(ArchitectureFamiliesTest, Llama4ScoutExpertsSharedExpertAndVisionTower) {
  const Architecture arch = LoadPublishedConfig("llama-4-scout-17b-16e-instruct");
  // interleave_moe_layer_step 1: every layer is MoE, each with 16 experts of width 8192 (intermediate_size)
  // and one shared expert of the same width; intermediate_size_mlp (16384) would be the dense width.
  for (int64_t i = 0; i < 48; ++i) EXPECT_TRUE(arch.IsMoeLayer(i)) << i;
  EXPECT_EQ(arch.moe.expert_intermediate, 8192);
  EXPECT_EQ(arch.moe.shared_expert_intermediate, 8192);
  EXPECT_EQ(arch.intermediate, 16384);
  const ParamCounts c = CountParams(arch);
  // One SwiGLU MLP of 8192: 3 x 5120 x 8192 = 125,829,120. Per layer 16 experts + the shared one.
  EXPECT_EQ(c.mlp, int64_t{48} * 17 * 125'829'120);
  EXPECT_EQ(c.mlp_active, int64_t{48} * 2 * 125'829'120);  // top-1 expert + the shared expert
  EXPECT_EQ(c.router, 48 * 5120 * 16);
  // Attention: q and o 5120 x 40 x 128 = 26,214,400 each, k and v 5120 x 8 x 128 = 5,242,880 each:
  // 62,914,560 per layer; Llama 4's q/k norm is an L2 norm without weights.
  EXPECT_EQ(c.attention, int64_t{48} * 62'914'560);
  // Vision tower (Llama4VisionModel): class token 1408 + positions (24 x 24 + 1) x 1408 = 812,416 +
  // patch projection 3 x 14 x 14 x 1408 = 827,904 + pre/post LayerNorms 4 x 1408 = 5,632 + 34 layers of
  // 23,807,872 (attention 4 x (1408^2 + 1408) = 7,935,488; MLP 2 x 1408 x 5632 + 5632 + 1408 =
  // 15,866,752; two LayerNorms 5,632) = 809,467,648 + adapter 5632 x 4096 + 4096 x 4096 = 39,845,888.
  EXPECT_EQ(c.vision, int64_t{1408} + 812'416 + 827'904 + 5'632 + 809'467'648 + 39'845'888);
  EXPECT_EQ(c.projector, 4096 * 5120);  // vision_output_dim x hidden, no bias
  // Total 108,641,793,536 against the card's 109B (-0.33 %); a text token's activated parameters
  // 17,172,894,720 (the card's 17B counts the input embedding).
  EXPECT_EQ(c.total(), 108'641'793'536);
  EXPECT_EQ(c.active_text(), 17'172'894'720);
}

TEST(ArchitectureFamiliesTest, Llama4MaverickInterleavesDenseAndExpertLayers) {
  const Architecture arch = LoadPublishedConfig("llama-4-maverick-17b-128e-instruct");
  // interleave_moe_layer_step 2: layers 1, 3, ..., 47 have 128 experts, layers 0, 2, ..., 46 a dense
  // SwiGLU MLP of intermediate_size_mlp 16,384.
  EXPECT_FALSE(arch.IsMoeLayer(0));
  EXPECT_TRUE(arch.IsMoeLayer(1));
  EXPECT_TRUE(arch.IsMoeLayer(47));
  const ParamCounts c = CountParams(arch);
  // 24 x (128 + 1 shared) x 125,829,120 + 24 x 3 x 5120 x 16,384 (= 251,658,240).
  EXPECT_EQ(c.mlp, int64_t{24} * 129 * 125'829'120 + int64_t{24} * 251'658'240);
  EXPECT_EQ(c.router, 24 * 5120 * 128);
  // 401,583,781,376 against the card's 400B (+0.40 %); a text token's 17,184,691,200 (card: 17B).
  EXPECT_EQ(c.total(), 401'583'781'376);
  EXPECT_EQ(c.active_text(), 17'184'691'200);
}

TEST(ArchitectureFamiliesTest, Llama4ChunkedLayersHoldAtMostAChunk) {
  const Architecture arch = LoadPublishedConfig("llama-4-scout-17b-16e-instruct");
  // No no_rope_layers in the config: Llama4TextConfig makes every 4th layer (3, 7, ..., 47) NoPE,
  // which vLLM gives full attention; the other 36 attend within chunks of 8192.
  EXPECT_EQ(arch.ChunkedLayerCount(), 36);
  EXPECT_EQ(arch.ChunkOf(0), 8192);
  EXPECT_EQ(arch.ChunkOf(3), 0);
  EXPECT_EQ(arch.ChunkOf(47), 0);
  // Per layer and token 2 x 8 KV heads x 128 x 2 bytes = 4,096; 48 layers: 196,608 bytes per token.
  // At 32,768 tokens the 12 full layers hold all of them, the 36 chunked ones 8,192:
  // 4,096 x (12 x 32,768 + 36 x 8,192) = 2,818,572,288 bytes, against 196,608 x 32,768 = 6 GiB.
  const KvCache kv = ComputeKvCache(arch, {32768, 1, 2, 1});
  EXPECT_EQ(kv.chunked_layers, 36);
  EXPECT_EQ(kv.full_layers, 12);
  EXPECT_DOUBLE_EQ(kv.bytes_per_token_per_gpu, 196'608);
  EXPECT_DOUBLE_EQ(kv.sequence_bytes_per_gpu, 2'818'572'288);
  // Within the first chunk every layer holds every token.
  EXPECT_DOUBLE_EQ(ComputeKvCache(arch, {4096, 1, 2, 1}).sequence_bytes_per_gpu, 196'608.0 * 4096);
  // vLLM's hybrid manager: 12 full and 36 chunked layers form groups of 12, no padding.
  const KvLayerSlots slots = HybridKvLayerSlots(arch, true);
  EXPECT_EQ(slots.groups, 4);
  EXPECT_EQ(slots.slots, 48);
}

TEST(ArchitectureFamiliesTest, Qwen3NextGatedDeltaNetAndGatedAttention) {
  const Architecture arch = LoadPublishedConfig("qwen3-next-80b-a3b-thinking");
  // full_attention_interval 4, no layer_types: layers 3, 7, ..., 47 full attention, the other 36 Gated DeltaNet.
  ASSERT_EQ(arch.mamba.kind, StateLayerKind::GatedDeltaNet);
  EXPECT_EQ(arch.mamba.count(), 36);
  EXPECT_FALSE(arch.mamba.IsMamba(3));
  EXPECT_TRUE(arch.mamba.IsMamba(4));
  EXPECT_TRUE(arch.attn_output_gate);
  const ParamCounts c = CountParams(arch);
  // Full attention: q_proj with its gate 2048 x 2 x 16 x 256 = 16,777,216; k and v 2048 x 2 x 256 =
  // 1,048,576 each; o 4096 x 2048 = 8,388,608 -> 27,262,976 per layer.
  EXPECT_EQ(c.attention, int64_t{12} * 27'262'976);
  // Gated DeltaNet: in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096) = 25,165,824; in_proj_ba 2048 x 64 =
  // 131,072; conv 8192 x 4 = 32,768; dt_bias and A_log 64; out_proj 4096 x 2048 = 8,388,608 -> 33,718,336.
  EXPECT_EQ(c.mamba, int64_t{36} * 33'718'336);
  // Every layer MoE: 512 experts of 3 x 2048 x 512 = 3,145,728, the shared expert (same width) and its
  // 1-wide gate 2048; router 2048 x 512.
  EXPECT_EQ(c.routed_experts, int64_t{48} * 512 * 3'145'728);
  EXPECT_EQ(c.mlp, int64_t{48} * (513 * int64_t{3'145'728} + 2048));
  // Norms: 48 x 2 x 2048 layer norms + 12 x 2 x 256 q/k norms + 36 x 128 gated norms + 2048 final.
  EXPECT_EQ(c.norms, 48 * 2 * 2048 + 12 * 2 * 256 + 36 * 128 + 2048);
  // 79,674,391,296 against the card's 80B (-0.41 %); 3,874,929,408 active with the embedding (card: 3B).
  EXPECT_EQ(c.total(), 79'674'391'296);
  EXPECT_EQ(c.active(), 3'874'929'408);
}

TEST(ArchitectureFamiliesTest, Qwen3NextKeepsAFixedStateInItsLinearLayers) {
  const Architecture arch = LoadPublishedConfig("qwen3-next-80b-a3b-thinking");
  // KV only in the 12 full-attention layers: 12 x 2 x 2 KV heads x 256 x 2 bytes = 24,576 per token.
  // Each DeltaNet layer keeps a convolution window of (4 - 1) x (2 x 2048 + 4096) = 24,576 values and
  // a state of 32 value heads x 128 x 128 = 524,288: 548,864 values, 1,097,728 bytes in BF16;
  // 36 layers: 39,518,208 bytes per sequence whatever its length.
  EXPECT_EQ(arch.mamba.state_values_per_layer(arch.hidden), 548'864);
  const KvCache kv = ComputeKvCache(arch, {32768, 1, 2, 1});
  EXPECT_EQ(kv.full_layers, 12);
  EXPECT_EQ(kv.state_layers, 36);
  EXPECT_DOUBLE_EQ(kv.bytes_per_token_per_gpu, 24'576);
  EXPECT_DOUBLE_EQ(kv.state_bytes_per_sequence_per_gpu, 39'518'208);
  EXPECT_DOUBLE_EQ(kv.sequence_bytes_per_gpu, 24'576.0 * 32768 + 39'518'208);
  // TP 2 splits the 2 KV heads and the state's heads and channels.
  const KvCache tp2 = ComputeKvCache(arch, {32768, 1, 2, 2});
  EXPECT_DOUBLE_EQ(tp2.bytes_per_token_per_gpu, 12'288);
  EXPECT_DOUBLE_EQ(tp2.state_bytes_per_sequence_per_gpu, 39'518'208 / 2);
}

TEST(ArchitectureFamiliesTest, NemotronHBlocksFollowTheHybridPattern) {
  // The hub's config.json holds "time_step_limit": [0.0, Infinity], as Python's json writes it.
  const Architecture arch = LoadPublishedConfig("nemotron-h-56b-base-8k");
  ASSERT_EQ(arch.mamba.kind, StateLayerKind::Mamba2);
  EXPECT_EQ(arch.mamba.count(), 54);
  EXPECT_EQ(arch.AttentionLayerCount(), 10);
  EXPECT_TRUE(arch.HasMlp(1));  // "M-M-M-M*-...": layer 1 is an MLP block
  EXPECT_FALSE(arch.HasMlp(0));
  EXPECT_FALSE(arch.HasAttention(0));
  EXPECT_TRUE(arch.HasAttention(7));  // "M-M-M-M*": the 8th block
  const ParamCounts c = CountParams(arch);
  // Mamba-2 mixer: inner 256 heads x 64 = 16,384; conv channels 16,384 + 2 x 8 groups x 256 = 20,480;
  // in_proj 8192 x (16,384 + 20,480 + 256) = 304,087,040; conv 20,480 x 4 + 20,480 bias = 102,400;
  // dt_bias, A_log, D 3 x 256 = 768; out_proj 16,384 x 8192 = 134,217,728 -> 438,407,936.
  EXPECT_EQ(c.mamba, int64_t{54} * 438'407'936);
  // Attention: q and o 8192 x 64 x 128 each, k and v 8192 x 8 x 128 each -> 150,994,944 per layer.
  EXPECT_EQ(c.attention, int64_t{10} * 150'994'944);
  // MLP blocks: squared ReLU, up and down only: 2 x 8192 x 32,768 = 536,870,912.
  EXPECT_EQ(c.mlp, int64_t{54} * 536'870'912);
  // One RMSNorm per block, a gated norm of 16,384 in each Mamba-2 mixer, the final norm.
  EXPECT_EQ(c.norms, 118 * 8192 + 54 * 16384 + 8192);
  // 56,324,350,464 against the card's 56B (+0.58 %).
  EXPECT_EQ(c.total(), 56'324'350'464);
  // KV only in the 10 attention layers: 10 x 2 x 8 x 128 x 2 bytes = 40,960 per token. Each Mamba-2
  // layer keeps (4 - 1) x 20,480 = 61,440 convolution values and 256 x 64 x 256 = 4,194,304 SSM values:
  // 4,255,744 values, 8,511,488 bytes in BF16; 54 layers: 459,620,352 bytes per sequence.
  EXPECT_EQ(arch.mamba.state_values_per_layer(arch.hidden), 4'255'744);
  const KvCache kv = ComputeKvCache(arch, {8192, 1, 2, 1});
  EXPECT_EQ(kv.full_layers, 10);
  EXPECT_DOUBLE_EQ(kv.bytes_per_token_per_gpu, 40'960);
  EXPECT_DOUBLE_EQ(kv.state_bytes_per_sequence_per_gpu, 459'620'352);
  EXPECT_DOUBLE_EQ(kv.sequence_bytes_per_gpu, 40'960.0 * 8192 + 459'620'352);
  // The MLP blocks take no pool memory; the 54 state layers form 6 groups of 10 beside the attention
  // group (vLLM's grouping: the smallest type's count), so 70 slots with 6 padding.
  const KvLayerSlots slots = HybridKvLayerSlots(arch, true);
  EXPECT_EQ(slots.attention_layers, 10);
  EXPECT_EQ(slots.state_groups, 6);
  EXPECT_EQ(slots.groups, 7);
  EXPECT_EQ(slots.slots, 70);
  EXPECT_EQ(slots.padding(), 6);
}

TEST(ArchitectureFamiliesTest, PythonInfinityAndNaNReadAsNullOutsideStrings) {
  auto arch = ParseHfConfigText(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "time_step_limit": [0.0, Infinity], "x": -Infinity, "y": NaN,
    "note": "Infinity and NaN \" stay in strings"})", "p");
  ASSERT_TRUE(arch.ok()) << arch.status().message();
  EXPECT_EQ(arch->hidden, 64);
  // A pattern block lab_check cannot count is refused by name, not counted wrong; so are MoE blocks
  // without their experts, and Nemotron 3's latent MoE.
  const std::string nemotron = R"("model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "mamba_num_heads": 2, "mamba_head_dim": 8, "ssm_state_size": 4, "n_groups": 1, "conv_kernel": 4)";
  auto unknown = ParseHfConfigText("{" + nemotron + R"(, "hybrid_override_pattern": "MX*"})", "x");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("'X' at layer 1"), std::string::npos) << unknown.status().message();
  auto no_experts = ParseHfConfigText("{" + nemotron + R"(, "hybrid_override_pattern": "ME*"})", "e");
  ASSERT_FALSE(no_experts.ok());
  EXPECT_NE(no_experts.status().message().find("n_routed_experts"), std::string::npos) << no_experts.status().message();
  auto latent = ParseHfConfigText("{" + nemotron + R"(, "hybrid_override_pattern": "ME*", "n_routed_experts": 4, "num_experts_per_tok": 2,
    "moe_intermediate_size": 16, "n_shared_experts": 1, "moe_shared_expert_intermediate_size": 32, "moe_latent_size": 32})", "l");
  ASSERT_FALSE(latent.ok());
  EXPECT_NE(latent.status().message().find("moe_latent_size"), std::string::npos) << latent.status().message();
}

TEST(ArchitectureFamiliesTest, Nemotron3NanoMoeBlocksByHand) {
  // "MEMEM*EMEMEM*...": 23 Mamba-2, 23 MoE and 6 attention blocks (the card's split), no MLP block.
  const Architecture arch = LoadPublishedConfig("nemotron-3-nano-30b-a3b");
  EXPECT_EQ(arch.mamba.count(), 23);
  EXPECT_EQ(arch.BlockCount('E'), 23);
  EXPECT_EQ(arch.AttentionLayerCount(), 6);
  EXPECT_TRUE(arch.IsMoeLayer(1));
  EXPECT_FALSE(arch.IsMoeLayer(0));
  EXPECT_TRUE(arch.HasMlp(1));
  EXPECT_FALSE(arch.HasMlp(5));  // '*'
  const ParamCounts c = CountParams(arch);
  // An expert: squared ReLU, up and down only, 2 x 2688 x 1856 = 9,977,856; the shared expert
  // 2 x 2688 x 3712 (1 x moe_shared_expert_intermediate_size) = 19,955,712; the router 2688 x 128
  // with its 128 score-correction biases = 344,192.
  EXPECT_EQ(c.routed_experts, int64_t{23} * 128 * 9'977'856);
  EXPECT_EQ(c.mlp, int64_t{23} * (128 * 9'977'856 + 19'955'712));
  EXPECT_EQ(c.mlp_active, int64_t{23} * (6 * 9'977'856 + 19'955'712));
  EXPECT_EQ(c.router, int64_t{23} * 344'192);
  // Mamba-2: inner 64 x 64 = 4096, conv channels 4096 + 2 x 8 x 128 = 6144; in_proj 2688 x (4096 +
  // 6144 + 64) = 27,697,152; conv 6144 x 4 + 6144 = 30,720; 3 x 64; out_proj 4096 x 2688 = 11,010,048.
  EXPECT_EQ(c.mamba, int64_t{23} * 38'738'112);
  // Attention: q and o 2688 x 4096 each, k and v 2688 x 256 each.
  EXPECT_EQ(c.attention, int64_t{6} * 23'396'352);
  // 31,577,940,288 in all (-0.07 % against 31.6B); 3,580,076,352 active with both embeddings
  // ("3.6B with embeddings"), 3,227,754,816 without the input embedding ("3.2B active").
  EXPECT_EQ(c.total(), 31'577'940'288);
  EXPECT_EQ(c.active(), 3'580'076'352);
  EXPECT_EQ(c.active() - c.embedding, 3'227'754'816);
  // KV in the 6 attention layers: 6 x 2 x 2 x 128 x 2 = 6,144 bytes per token. A Mamba-2 state:
  // (4 - 1) x 6144 = 18,432 convolution values in BF16 and 64 x 64 x 128 = 524,288 SSM values in
  // float32 (mamba_ssm_cache_dtype), 36,864 + 2,097,152 = 2,134,016 bytes; 23 layers 49,082,368.
  const KvCache kv = ComputeKvCache(arch, {8192, 1, 2, 1});
  EXPECT_DOUBLE_EQ(kv.bytes_per_token_per_gpu, 6'144);
  EXPECT_DOUBLE_EQ(arch.mamba.state_bytes_per_layer(arch.hidden, 2), 2'134'016);
  EXPECT_DOUBLE_EQ(kv.state_bytes_per_sequence_per_gpu, 23 * 2'134'016.0);
  // An FP8 KV cache halves K and V, not the states (vLLM's mamba_cache_dtype "auto").
  EXPECT_DOUBLE_EQ(ComputeKvCache(arch, {8192, 1, 1, 1}).state_bytes_per_sequence_per_gpu, 23 * 2'134'016.0);
}

TEST(ArchitectureFamiliesTest, GptqAndBitsandbytesQuantisationConfigs) {
  auto gptq = ParseHfConfigText(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}})", "g");
  ASSERT_TRUE(gptq.ok()) << gptq.status().message();
  // 4-bit weights, an FP16 scale and a 4-bit zero point per 128: 4 + 20/128.
  EXPECT_DOUBLE_EQ(gptq->quant.EffectiveBits(), 4 + 20.0 / 128);
  auto per_channel = ParseHfConfigText(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"quant_method": "gptq", "bits": 8, "group_size": -1}})", "g");
  ASSERT_TRUE(per_channel.ok());
  EXPECT_DOUBLE_EQ(per_channel->quant.EffectiveBits(), 8);
  auto bnb = ParseHfConfigText(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true,
    "llm_int8_skip_modules": ["self_attn"]}})", "b");
  ASSERT_TRUE(bnb.ok());
  EXPECT_EQ(bnb->quant.method, QuantMethod::Bnb4);
  EXPECT_TRUE(bnb->quant.attention_unquantized);
  const ParamCounts c = CountParams(*bnb);
  EXPECT_EQ(CountCheckpointWeights(c, bnb->quant).quantized_params, c.mlp);
  EXPECT_FALSE(ParseHfConfigText(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"bits": 4}})", "m").ok());
}

// compressed-tensors as llm-compressor writes it (the W4A16 scheme of RedHat/neuralmagic
// checkpoints, e.g. https://huggingface.co/RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16):
// config_groups.group_0.weights {num_bits 4, strategy "group", group_size 128, symmetric}.
TEST(ArchitectureFamiliesTest, CompressedTensorsConfigGroups) {
  const std::string head = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"quant_method": "compressed-tensors", )";
  auto w4 = ParseHfConfigText(head + R"("format": "pack-quantized", "ignore": ["lm_head"], "config_groups": {"group_0":
    {"targets": ["Linear"], "input_activations": null, "weights": {"num_bits": 4, "type": "int", "symmetric": true,
    "strategy": "group", "group_size": 128}}}}})", "w4");
  ASSERT_TRUE(w4.ok()) << w4.status().message();
  EXPECT_EQ(w4->quant.method, QuantMethod::CompressedTensors);
  EXPECT_EQ(w4->quant.group_size, 128);
  // Symmetric: 4-bit values and a 16-bit scale per 128, no zero point.
  EXPECT_DOUBLE_EQ(w4->quant.EffectiveBits(), 4 + 16.0 / 128);
  ASSERT_EQ(w4->quant.unquantized_modules.size(), 1u);
  EXPECT_EQ(w4->quant.unquantized_modules[0], "lm_head");
  const ParamCounts c = CountParams(*w4);
  EXPECT_EQ(CountCheckpointWeights(c, w4->quant).quantized_params, c.mlp + c.attention);
  // Asymmetric adds a 4-bit zero point per group.
  auto asym = ParseHfConfigText(head + R"("config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4,
    "symmetric": false, "strategy": "group", "group_size": 64}}}}})", "a");
  ASSERT_TRUE(asym.ok());
  EXPECT_DOUBLE_EQ(asym->quant.EffectiveBits(), 4 + 20.0 / 64);
  // W8A8-FP8 with per-channel weight scales, attention ignored; a second group is named as not modelled.
  auto fp8 = ParseHfConfigText(head + R"("ignore": ["model.layers.0.self_attn.q_proj"], "config_groups": {"group_0":
    {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "group_size": null},
    "input_activations": {"num_bits": 8, "type": "float", "dynamic": true}}, "group_1": {"targets": ["re:.*mlp.*"],
    "weights": {"num_bits": 4, "strategy": "group", "group_size": 128}}}}})", "f");
  ASSERT_TRUE(fp8.ok()) << fp8.status().message();
  EXPECT_DOUBLE_EQ(fp8->quant.EffectiveBits(), 8);
  EXPECT_TRUE(fp8->quant.attention_unquantized);
  EXPECT_EQ(fp8->quant.extra_groups, 1);
  EXPECT_NE(CheckpointQuantText(fp8->quant).en.find("1 more config_groups"), std::string::npos);
  EXPECT_FALSE(ParseHfConfigText(head + R"("config_groups": {}}})", "e").ok());
}

}  // namespace
}  // namespace labcheck::calc

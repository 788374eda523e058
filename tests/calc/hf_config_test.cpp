// Reading Hugging Face config.json files: the fields that change memory, and clear errors.
#include <gtest/gtest.h>

#include "calc/hf_config.h"

namespace labcheck::calc {
namespace {

const char* kLlamaLike = R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
  "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
  "max_position_embeddings": 131072, "tie_word_embeddings": false})";

TEST(HfConfigTest, ReadsGroupedQueryAttentionAndDerivesHeadDim) {
  auto arch = ParseHfConfigText(kLlamaLike, "test");
  ASSERT_TRUE(arch.ok()) << arch.status().message();
  EXPECT_EQ(arch->kv_heads, 8);
  EXPECT_EQ(arch->head_dim, 128);  // 4096 / 32: no head_dim field
  EXPECT_FALSE(arch->tied_embeddings);
  EXPECT_EQ(arch->SlidingLayerCount(), 0);
}

TEST(HfConfigTest, MissingKvHeadsMeansMultiHeadAttentionAsInTransformers) {
  auto arch = ParseHfConfigText(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})", "test");
  ASSERT_TRUE(arch.ok());
  EXPECT_EQ(arch->kv_heads, 4);
}

TEST(HfConfigTest, ExplicitHeadDimWins) {
  auto arch = ParseHfConfigText(R"({"model_type": "qwen3", "hidden_size": 1024, "num_hidden_layers": 2,
    "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 3072, "vocab_size": 100})", "q");
  ASSERT_TRUE(arch.ok());
  EXPECT_EQ(arch->head_dim, 128);
  EXPECT_EQ(arch->q_dim(), 2048);  // wider than hidden, as in Qwen3-0.6B
  EXPECT_TRUE(arch->qk_norm);
  EXPECT_FALSE(arch->tied_embeddings);  // Qwen's default when the field is absent
}

TEST(HfConfigTest, MissingFieldIsNamed) {
  auto arch = ParseHfConfigText(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "intermediate_size": 14336, "vocab_size": 128256})", "/tmp/config.json");
  ASSERT_FALSE(arch.ok());
  EXPECT_NE(arch.status().message().find("num_attention_heads"), std::string::npos) << arch.status().message();
  EXPECT_NE(arch.status().message().find("/tmp/config.json"), std::string::npos);
}

TEST(HfConfigTest, WrongTypeAndBrokenJsonAreErrors) {
  auto wrong = ParseHfConfigText(R"({"hidden_size": "4096", "num_hidden_layers": 1, "num_attention_heads": 1,
    "intermediate_size": 1, "vocab_size": 1})", "c");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("hidden_size"), std::string::npos);
  EXPECT_FALSE(ParseHfConfigText("{not json", "c").ok());
  EXPECT_FALSE(ParseHfConfigText(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 3, "intermediate_size": 8, "vocab_size": 10})", "c").ok());
}

TEST(HfConfigTest, NestedTextConfigAndGemmaDefaults) {
  auto arch = ParseHfConfigText(R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
    "hidden_size": 2560, "num_hidden_layers": 12, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
    "intermediate_size": 10240, "vocab_size": 262208, "sliding_window": 1024, "sliding_window_pattern": 6},
    "vision_config": {"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27, "patch_size": 14,
    "image_size": 896}})", "g");
  ASSERT_TRUE(arch.ok()) << arch.status().message();
  EXPECT_TRUE(arch->tied_embeddings);  // Gemma ties unless told otherwise
  EXPECT_EQ(arch->norms_per_layer, 4);
  EXPECT_TRUE(arch->vision.present());
  // Layers 5 and 11 are global: (i + 1) % 6 == 0.
  ASSERT_EQ(arch->window_per_layer.size(), 12u);
  EXPECT_EQ(arch->window_per_layer[4], 1024);
  EXPECT_EQ(arch->window_per_layer[5], 0);
  EXPECT_EQ(arch->window_per_layer[11], 0);
  EXPECT_EQ(arch->SlidingLayerCount(), 10);
}

TEST(HfConfigTest, MissingFieldInTextConfigSaysWhere) {
  auto arch = ParseHfConfigText(R"({"text_config": {"hidden_size": 10, "num_hidden_layers": 1,
    "num_attention_heads": 1, "vocab_size": 5}})", "g");
  ASSERT_FALSE(arch.ok());
  EXPECT_NE(arch.status().message().find("\"intermediate_size\" in text_config"), std::string::npos) << arch.status().message();
}

TEST(HfConfigTest, LayerTypesListWinsAndUnusedWindowIsIgnored) {
  auto typed = ParseHfConfigText(R"({"model_type": "x", "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4,
    "intermediate_size": 8, "vocab_size": 10, "sliding_window": 512,
    "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]})", "t");
  ASSERT_TRUE(typed.ok());
  EXPECT_EQ(typed->window_per_layer, (std::vector<int64_t>{512, 0, 512}));
  // Qwen2/3 ship sliding_window with use_sliding_window false: no window.
  auto unused = ParseHfConfigText(R"({"model_type": "qwen2", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 8, "vocab_size": 10, "sliding_window": 32768, "use_sliding_window": false})", "t");
  ASSERT_TRUE(unused.ok());
  EXPECT_EQ(unused->SlidingLayerCount(), 0);
  EXPECT_TRUE(unused->qkv_bias);  // Qwen2 has q/k/v biases
  // Mistral 7B v0.1: a window on every layer.
  auto mistral = ParseHfConfigText(R"({"model_type": "mistral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "intermediate_size": 8, "vocab_size": 10, "sliding_window": 4096})", "t");
  ASSERT_TRUE(mistral.ok());
  EXPECT_EQ(mistral->SlidingLayerCount(), 2);
}

TEST(HfConfigTest, MixtureOfExperts) {
  auto arch = ParseHfConfigText(R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2})", "m");
  ASSERT_TRUE(arch.ok());
  EXPECT_EQ(arch->moe.experts, 8);
  EXPECT_EQ(arch->moe.expert_intermediate, 14336);  // Mixtral's experts use intermediate_size
  auto broken = ParseHfConfigText(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 8, "vocab_size": 10, "num_experts": 8})", "m");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("num_experts_per_tok"), std::string::npos);
}

TEST(HfConfigTest, Llama4ListsWinOverTheDefaults) {
  // moe_layers and no_rope_layers as written override interleave_moe_layer_step and the every-4th rule.
  const std::string head = R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 64,
    "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 32,
    "intermediate_size_mlp": 128, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 1,
    "interleave_moe_layer_step": 1, "attention_chunk_size": 8, )";
  auto arch = ParseHfConfigText(head + R"("moe_layers": [1, 2], "no_rope_layers": [0, 1, 1, 0]}})", "l");
  ASSERT_TRUE(arch.ok()) << arch.status().message();
  EXPECT_FALSE(arch->IsMoeLayer(0));
  EXPECT_TRUE(arch->IsMoeLayer(1));
  EXPECT_FALSE(arch->IsMoeLayer(3));
  EXPECT_EQ(arch->intermediate, 128);  // the dense layers' width
  EXPECT_EQ(arch->ChunkOf(0), 0);      // NoPE: full attention
  EXPECT_EQ(arch->ChunkOf(1), 8);
  EXPECT_EQ(arch->ChunkedLayerCount(), 2);
  auto wrong = ParseHfConfigText(head + R"("no_rope_layers": [1, 0]}})", "w");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("no_rope_layers"), std::string::npos);
}

TEST(HfConfigTest, QwenNextLayerTypesPickTheLinearLayers) {
  auto arch = ParseHfConfigText(R"({"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 3,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "vocab_size": 100,
    "layer_types": ["full_attention", "linear_attention", "linear_attention"], "linear_num_key_heads": 2,
    "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 8, "linear_conv_kernel_dim": 4})", "q");
  ASSERT_TRUE(arch.ok()) << arch.status().message();
  EXPECT_FALSE(arch->mamba.IsMamba(0));
  EXPECT_TRUE(arch->mamba.IsMamba(1));
  // (4 - 1) x (2 x 16 + 32) + 4 x 8 x 8 = 192 + 256 values per layer.
  EXPECT_EQ(arch->mamba.state_values_per_layer(arch->hidden), 448);
  EXPECT_FALSE(ParseHfConfigText(R"({"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "linear_num_value_heads": 4})", "m").ok());
}

}  // namespace
}  // namespace labcheck::calc

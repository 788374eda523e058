// The architecture facts the calculators need, read from a Hugging Face config.json (the built-in
// catalog stores published configs, so both paths go through the same parser).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace labcheck::calc {

struct MixtureOfExperts {
  int64_t experts = 0;             // routed experts per MoE layer; 0 = dense model
  int64_t experts_per_token = 0;   // routed experts each token uses
  int64_t expert_intermediate = 0; // width of one expert's MLP
  int64_t shared_expert_intermediate = 0;  // always-on shared expert (Qwen2-MoE); 0 = none
  int64_t sparse_step = 1;         // every sparse_step-th layer is MoE (Qwen: decoder_sparse_step)
  std::vector<int64_t> dense_layers;  // layers that keep a dense MLP (Qwen: mlp_only_layers)

  bool enabled() const { return experts > 0; }
};

// A SigLIP/CLIP-style vision tower of a multimodal model (Gemma 3): counted as weights.
struct VisionTower {
  int64_t hidden = 0;
  int64_t intermediate = 0;
  int64_t layers = 0;
  int64_t patch_size = 0;
  int64_t image_size = 0;
  int64_t channels = 3;

  bool present() const { return layers > 0; }
};

struct Architecture {
  std::string model_type;  // config.json "model_type" of the text model ("llama", "qwen3", ...)
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;     // < heads: grouped-query attention
  int64_t head_dim = 0;
  int64_t intermediate = 0; // dense MLP width
  int64_t vocab = 0;
  int64_t max_context = 0;  // max_position_embeddings; 0 = not stated
  bool tied_embeddings = false;
  bool gated_mlp = true;    // SwiGLU/GeGLU: gate, up and down projections
  bool qkv_bias = false;
  bool qk_norm = false;     // per-head RMSNorm on q and k (Qwen3, Gemma 3)
  int norms_per_layer = 2;  // Gemma 2/3 add post-attention and post-MLP norms: 4
  // Per layer: how many past tokens it attends to; 0 = all (full attention).
  std::vector<int64_t> window_per_layer;
  MixtureOfExperts moe;
  VisionTower vision;

  int64_t q_dim() const { return heads * head_dim; }
  int64_t kv_dim() const { return kv_heads * head_dim; }
  bool IsMoeLayer(int64_t layer) const;
  int64_t SlidingLayerCount() const;
};

}  // namespace labcheck::calc

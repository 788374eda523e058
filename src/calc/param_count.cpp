#include "calc/param_count.h"

#include <algorithm>

namespace labcheck::calc {
namespace {

// A gated MLP (SwiGLU, GeGLU) has three hidden x width matrices; a plain one two.
int64_t MlpParams(const Architecture& arch, int64_t width) {
  return (arch.gated_mlp ? 3 : 2) * arch.hidden * width;
}

// SigLIP-style ViT: patch embedding (conv), learned positions, pre-norm blocks with biased
// linear layers and two LayerNorms (weight and bias), a final LayerNorm, then a projector into
// the text model (Gemma 3: a hidden_v x hidden_t matrix and an RMSNorm of hidden_v), counted apart.
int64_t VisionParams(const VisionTower& v, int64_t text_hidden) {
  if (!v.present()) return 0;
  const int64_t patches = v.patch_size > 0 ? (v.image_size / v.patch_size) * (v.image_size / v.patch_size) : 0;
  const int64_t patch_embedding = v.channels * v.patch_size * v.patch_size * v.hidden + v.hidden;
  const int64_t positions = patches * v.hidden;
  const int64_t attention = 4 * (v.hidden * v.hidden + v.hidden);
  const int64_t mlp = 2 * v.hidden * v.intermediate + v.intermediate + v.hidden;
  const int64_t layer_norms = 2 * 2 * v.hidden;
  const int64_t post_norm = 2 * v.hidden;
  (void)text_hidden;
  return patch_embedding + positions + v.layers * (attention + mlp + layer_norms) + post_norm;
}

int64_t ProjectorParams(const VisionTower& v, int64_t text_hidden) {
  return v.present() ? v.hidden * text_hidden + v.hidden : 0;
}

}  // namespace

ParamCounts CountParams(const Architecture& arch) {
  ParamCounts p;
  p.embedding = arch.vocab * arch.hidden;
  p.lm_head = arch.tied_embeddings ? 0 : arch.vocab * arch.hidden;
  const int64_t q = arch.q_dim(), kv = arch.kv_dim();
  const int64_t attention_per_layer =
      arch.hidden * q + 2 * arch.hidden * kv + q * arch.hidden + (arch.qkv_bias ? q + 2 * kv : 0);
  p.attention = arch.layers * attention_per_layer;
  p.largest_linear = std::max({arch.hidden * q, arch.hidden * kv});
  for (int64_t layer = 0; layer < arch.layers; ++layer) {
    if (arch.IsMoeLayer(layer)) {
      const int64_t expert = MlpParams(arch, arch.moe.expert_intermediate);
      const int64_t shared = arch.moe.shared_expert_intermediate > 0
                                 ? MlpParams(arch, arch.moe.shared_expert_intermediate) + arch.hidden
                                 : 0;  // Qwen2-MoE's shared expert has a 1-wide sigmoid gate
      p.mlp += arch.moe.experts * expert + shared;
      p.mlp_active += arch.moe.experts_per_token * expert + shared;
      p.router += arch.hidden * arch.moe.experts;
      p.largest_linear = std::max(p.largest_linear, arch.hidden * arch.moe.expert_intermediate);
    } else {
      p.mlp += MlpParams(arch, arch.intermediate);
      p.mlp_active += MlpParams(arch, arch.intermediate);
      p.largest_linear = std::max(p.largest_linear, arch.hidden * arch.intermediate);
    }
  }
  const int64_t qk_norms = arch.qk_norm ? 2 * arch.head_dim : 0;
  p.norms = arch.layers * (arch.norms_per_layer * arch.hidden + qk_norms) + arch.hidden;
  p.vision = VisionParams(arch.vision, arch.hidden);
  p.projector = ProjectorParams(arch.vision, arch.hidden);
  return p;
}

int64_t ParamCounts::matmul_active(const Architecture& arch) const {
  return attention + mlp_active + router + arch.vocab * arch.hidden;
}

int64_t LoraParams(const Architecture& arch, int64_t rank, const LoraTargets& t, bool experts) {
  const int64_t q = arch.q_dim(), kv = arch.kv_dim(), h = arch.hidden;
  // q: h->q, k and v: h->kv, o: q->h.
  const int64_t attention = rank * ((t.q ? h + q : 0) + (t.k ? h + kv : 0) + (t.v ? h + kv : 0) + (t.o ? q + h : 0));
  // gate and up: h->width, down: width->h (a plain MLP has up and down only).
  auto mlp = [&](int64_t width) {
    return rank * (((t.gate && arch.gated_mlp) ? h + width : 0) + (t.up ? h + width : 0) + (t.down ? width + h : 0));
  };
  int64_t total = 0;
  for (int64_t layer = 0; layer < arch.layers; ++layer) {
    int64_t adapters = attention;
    if (arch.IsMoeLayer(layer)) {
      if (experts) adapters += arch.moe.experts * mlp(arch.moe.expert_intermediate);
      if (arch.moe.shared_expert_intermediate > 0) adapters += mlp(arch.moe.shared_expert_intermediate);
    } else {
      adapters += mlp(arch.intermediate);
    }
    total += adapters;
  }
  return total;
}

}  // namespace labcheck::calc

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
// Llama 4's tower (modeling_llama4.py Llama4VisionModel) has the same encoder layers, plus a class
// token and its position, an unbiased patch projection, LayerNorms before and after the encoder,
// and the pixel-shuffle adapter (Llama4VisionMLP2: intermediate -> projector_input_dim ->
// projector_output_dim, no biases).
int64_t VisionParams(const VisionTower& v) {
  if (!v.present()) return 0;
  const int64_t patches = v.patch_size > 0 ? (v.image_size / v.patch_size) * (v.image_size / v.patch_size) : 0;
  const int64_t attention = 4 * (v.hidden * v.hidden + v.hidden);
  const int64_t mlp = 2 * v.hidden * v.intermediate + v.intermediate + v.hidden;
  const int64_t layer_norms = 2 * 2 * v.hidden;
  const int64_t encoder = v.layers * (attention + mlp + layer_norms);
  const int64_t patch_weights = v.channels * v.patch_size * v.patch_size * v.hidden;
  if (v.kind == VisionKind::Llama4) {
    const int64_t class_token = v.hidden + v.hidden;  // the token and its position
    const int64_t adapter = v.intermediate * v.projector_input_dim + v.projector_output_dim * v.projector_output_dim;
    return class_token + patches * v.hidden + patch_weights + 2 * 2 * v.hidden + encoder + adapter;
  }
  const int64_t post_norm = 2 * v.hidden;
  return patch_weights + v.hidden + patches * v.hidden + encoder + post_norm;
}

// Gemma 3: a hidden_v x hidden_t matrix and an RMSNorm of hidden_v. Llama 4: one unbiased
// vision_output_dim x hidden_t matrix.
int64_t ProjectorParams(const VisionTower& v, int64_t text_hidden) {
  if (!v.present()) return 0;
  return v.kind == VisionKind::Llama4 ? v.vision_output_dim * text_hidden : v.hidden * text_hidden + v.hidden;
}

// Multi-head latent attention (modeling_deepseek.py DeepseekV2Attention, no biases in any
// published config): q_a (hidden -> q_lora_rank) and q_b (-> heads x (nope + rope)), or one q_proj
// when q_lora_rank is null; kv_a_proj_with_mqa (hidden -> kv_lora_rank + rope); kv_b (kv_lora_rank
// -> heads x (nope + v)); o (heads x v -> hidden). The two latent RMSNorms are counted as norms.
struct LatentAttentionParams {
  int64_t linear = 0;
  int64_t norms = 0;
  int64_t largest = 0;
};

LatentAttentionParams LatentParams(const Architecture& arch) {
  const LatentAttention& m = arch.mla;
  const int64_t h = arch.hidden, heads = arch.heads, qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
  const int64_t q = m.q_lora_rank > 0 ? h * m.q_lora_rank + m.q_lora_rank * heads * qk : h * heads * qk;
  const int64_t kv_a = h * (m.kv_lora_rank + m.qk_rope_head_dim);
  const int64_t kv_b = m.kv_lora_rank * heads * (m.qk_nope_head_dim + m.v_head_dim);
  const int64_t o = heads * m.v_head_dim * h;
  LatentAttentionParams p;
  p.linear = q + kv_a + kv_b + o;
  p.norms = m.q_lora_rank + m.kv_lora_rank;
  p.largest = std::max({m.q_lora_rank > 0 ? m.q_lora_rank * heads * qk : h * heads * qk, kv_a, kv_b, o});
  return p;
}

// One Jamba Mamba mixer (modeling_jamba.py JambaMambaMixer): in_proj hidden -> 2 x inner, a
// depthwise conv of d_conv taps, x_proj inner -> dt_rank + 2 d_state, dt_proj dt_rank -> inner with
// bias, A_log inner x d_state, D inner, out_proj inner -> hidden. Its three RMSNorms (dt, B, C) are norms.
int64_t Mamba1MixerParams(const Architecture& arch) {
  const MambaLayers& m = arch.mamba;
  const int64_t h = arch.hidden, inner = m.expand * h;
  return h * 2 * inner + (m.proj_bias ? 2 * inner : 0) + inner * m.d_conv + (m.conv_bias ? inner : 0) +
         inner * (m.dt_rank + 2 * m.d_state) + m.dt_rank * inner + inner + inner * m.d_state + inner +
         inner * h + (m.proj_bias ? h : 0);
}

// Nemotron-H's Mamba-2 mixer (modeling_nemotron_h.py NemotronHMamba2Mixer): in_proj hidden -> inner
// (z) + conv channels (x, B, C) + heads (dt); a depthwise conv over the conv channels; dt_bias, A_log
// and D per head; out_proj inner -> hidden. Its gated RMSNorm (inner) is a norm.
int64_t Mamba2MixerParams(const Architecture& arch) {
  const MambaLayers& m = arch.mamba;
  const int64_t h = arch.hidden, inner = m.heads * m.head_dim, conv = m.conv_channels(h);
  const int64_t in_proj = h * (inner + conv + m.heads) + (m.proj_bias ? inner + conv + m.heads : 0);
  return in_proj + conv * m.d_conv + (m.conv_bias ? conv : 0) + 3 * m.heads + inner * h + (m.proj_bias ? h : 0);
}

// Qwen3-Next's Gated DeltaNet (modeling_qwen3_next.py Qwen3NextGatedDeltaNet): in_proj_qkvz hidden ->
// 2 x key width + 2 x value width (q, k, v and the output gate z), in_proj_ba hidden -> 2 x value
// heads, a depthwise conv over q, k, v without bias, dt_bias and A_log per value head, out_proj value
// width -> hidden. Its gated RMSNorm (value_head_dim) is a norm.
int64_t GatedDeltaNetParams(const Architecture& arch) {
  const MambaLayers& m = arch.mamba;
  const int64_t h = arch.hidden, key = m.key_heads * m.key_head_dim, value = m.value_heads * m.value_head_dim;
  return h * (2 * key + 2 * value) + h * 2 * m.value_heads + m.conv_channels(h) * m.d_conv + 2 * m.value_heads + value * h;
}

int64_t StateMixerParams(const Architecture& arch) {
  switch (arch.mamba.kind) {
    case StateLayerKind::Mamba2: return Mamba2MixerParams(arch);
    case StateLayerKind::GatedDeltaNet: return GatedDeltaNetParams(arch);
    case StateLayerKind::Mamba1: break;
  }
  return Mamba1MixerParams(arch);
}

// The norms inside a state mixer: Jamba's dt, B and C RMSNorms; Mamba-2's gated norm over the inner
// width; Gated DeltaNet's over one value head.
int64_t StateMixerNorms(const MambaLayers& m) {
  switch (m.kind) {
    case StateLayerKind::Mamba2: return m.heads * m.head_dim;
    case StateLayerKind::GatedDeltaNet: return m.value_head_dim;
    case StateLayerKind::Mamba1: break;
  }
  return m.dt_rank + 2 * m.d_state;
}

}  // namespace

ParamCounts CountParams(const Architecture& arch) {
  ParamCounts p;
  p.embedding = arch.vocab * arch.hidden;
  p.lm_head = arch.tied_embeddings ? 0 : arch.vocab * arch.hidden;
  const int64_t q = arch.q_dim(), kv = arch.kv_dim();
  int64_t latent_norms = 0;
  if (arch.mla.enabled()) {
    const LatentAttentionParams latent = LatentParams(arch);
    p.attention = arch.AttentionLayerCount() * latent.linear;
    latent_norms = latent.norms;
    p.largest_linear = latent.largest;
  } else {
    // Qwen3-Next's gated attention: q_proj also yields the output gate, hidden -> 2 x q.
    const int64_t q_out = arch.attn_output_gate ? 2 * q : q;
    const int64_t attention_per_layer = arch.hidden * q_out + 2 * arch.hidden * kv + q * arch.hidden +
                                        (arch.qkv_bias ? q + 2 * kv : 0) + (arch.o_bias ? arch.hidden : 0) +
                                        (arch.attention_sinks ? arch.heads : 0);
    p.attention = arch.AttentionLayerCount() * attention_per_layer;
    p.largest_linear = std::max({arch.hidden * q, arch.hidden * kv});
  }
  if (arch.mamba.count() > 0) {
    // Mamba layers have a mixer instead of attention (AttentionLayerCount leaves them out).
    p.mamba = arch.mamba.count() * StateMixerParams(arch);
    latent_norms = 0;
  }
  for (int64_t layer = 0; layer < arch.layers; ++layer) {
    if (!arch.HasMlp(layer)) continue;  // Nemotron-H: a Mamba or attention block has no MLP
    if (arch.IsMoeLayer(layer)) {
      // GPT-OSS biases gate_up (2 x width) and down (hidden) of every expert.
      const int64_t expert = MlpParams(arch, arch.moe.expert_intermediate) +
                             (arch.expert_bias ? 2 * arch.moe.expert_intermediate + arch.hidden : 0);
      const int64_t shared_gate = arch.moe.shared_expert_gate ? arch.hidden : 0;  // Qwen2-MoE: 1-wide sigmoid gate
      const int64_t shared = arch.moe.shared_expert_intermediate > 0
                                 ? MlpParams(arch, arch.moe.shared_expert_intermediate) + shared_gate
                                 : 0;
      p.mlp += arch.moe.experts * expert + shared;
      p.routed_experts += arch.moe.experts * expert;
      p.mlp_active += arch.moe.experts_per_token * expert + shared;
      // One bias per expert: DeepSeek-V3's score correction (used only to pick experts), GPT-OSS's router bias.
      p.router += arch.hidden * arch.moe.experts + (arch.moe.router_score_bias || arch.expert_bias ? arch.moe.experts : 0);
      p.largest_linear = std::max(p.largest_linear, arch.hidden * arch.moe.expert_intermediate);
    } else {
      p.mlp += MlpParams(arch, arch.intermediate);
      p.mlp_active += MlpParams(arch, arch.intermediate);
      p.largest_linear = std::max(p.largest_linear, arch.hidden * arch.intermediate);
    }
  }
  // q/k norms only where there is attention (Qwen3-Next: its 12 full-attention layers).
  const int64_t qk_norms = arch.qk_norm ? 2 * arch.head_dim : 0;
  p.norms = arch.layers * (arch.norms_per_layer * arch.hidden + latent_norms) + arch.AttentionLayerCount() * qk_norms +
            arch.hidden + arch.mamba.count() * StateMixerNorms(arch.mamba);
  p.vision = VisionParams(arch.vision);
  p.projector = ProjectorParams(arch.vision, arch.hidden);
  return p;
}

int64_t ParamCounts::matmul_active(const Architecture& arch) const {
  return attention + mamba + mlp_active + router + arch.vocab * arch.hidden;
}

int64_t LoraParams(const Architecture& arch, int64_t rank, const LoraTargets& t, bool experts) {
  const int64_t q = arch.q_dim(), kv = arch.kv_dim(), h = arch.hidden;
  // q: h->q, k and v: h->kv, o: q->h.
  const int64_t q_out = arch.attn_output_gate ? 2 * q : q;  // Qwen3-Next: q_proj yields the gate too
  int64_t attention = rank * ((t.q ? h + q_out : 0) + (t.k ? h + kv : 0) + (t.v ? h + kv : 0) + (t.o ? q + h : 0));
  if (arch.mla.enabled()) {
    // MLA's projections: q_a/q_b (or q_proj) for q, kv_a_proj_with_mqa and kv_b_proj for k and v
    // (one pair serves both), o_proj for o.
    const LatentAttention& m = arch.mla;
    const int64_t qk = arch.heads * (m.qk_nope_head_dim + m.qk_rope_head_dim);
    const int64_t q_path = m.q_lora_rank > 0 ? (h + m.q_lora_rank) + (m.q_lora_rank + qk) : h + qk;
    const int64_t kv_path = (h + m.kv_lora_rank + m.qk_rope_head_dim) +
                            (m.kv_lora_rank + arch.heads * (m.qk_nope_head_dim + m.v_head_dim));
    attention = rank * ((t.q ? q_path : 0) + (t.k || t.v ? kv_path : 0) + (t.o ? arch.heads * m.v_head_dim + h : 0));
  }
  // gate and up: h->width, down: width->h (a plain MLP has up and down only).
  auto mlp = [&](int64_t width) {
    return rank * (((t.gate && arch.gated_mlp) ? h + width : 0) + (t.up ? h + width : 0) + (t.down ? width + h : 0));
  };
  int64_t total = 0;
  for (int64_t layer = 0; layer < arch.layers; ++layer) {
    int64_t adapters = arch.HasAttention(layer) ? attention : 0;  // Mamba/DeltaNet mixers: not q/k/v/o
    if (!arch.HasMlp(layer)) {
      // Nemotron-H: the block is attention or a mixer only.
    } else if (arch.IsMoeLayer(layer)) {
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

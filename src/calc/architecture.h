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
  // Always-on shared experts' total width: Qwen2-MoE's shared_expert_intermediate_size, or
  // DeepSeek's n_shared_experts x moe_intermediate_size (one MLP that wide). 0 = none.
  int64_t shared_expert_intermediate = 0;
  int64_t shared_experts = 0;      // DeepSeek's n_shared_experts (0 for Qwen, whose count is implicit)
  bool shared_expert_gate = false; // Qwen2-MoE gates its shared expert with a 1-wide sigmoid; DeepSeek does not
  bool router_score_bias = false;  // DeepSeek-V3's e_score_correction_bias (topk_method "noaux_tc")
  int64_t sparse_step = 1;         // every sparse_step-th layer is MoE (Qwen: decoder_sparse_step)
  // DeepSeek's rule: layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0.
  int64_t first_dense_layers = 0;  // first_k_dense_replace
  int64_t layer_freq = 1;          // moe_layer_freq (Jamba: expert_layer_period)
  int64_t layer_offset = 0;        // Jamba's expert_layer_offset: MoE when i % layer_freq == layer_offset
  std::vector<int64_t> dense_layers;  // layers that keep a dense MLP (Qwen: mlp_only_layers)

  bool enabled() const { return experts > 0; }
};

// The vision tower of a multimodal model, counted as weights: SigLIP-style (Gemma 3), or Llama 4's
// (a class token, an unbiased patch projection, pre- and post-LayerNorms, and a pixel-shuffle
// adapter MLP before the projector into the text model).
enum class VisionKind { Siglip, Llama4 };

struct VisionTower {
  VisionKind kind = VisionKind::Siglip;
  int64_t hidden = 0;
  int64_t intermediate = 0;
  int64_t layers = 0;
  int64_t patch_size = 0;
  int64_t image_size = 0;
  int64_t channels = 3;
  int64_t projector_input_dim = 0;   // Llama 4: the adapter's widths and the projector's input
  int64_t projector_output_dim = 0;
  int64_t vision_output_dim = 0;

  bool present() const { return layers > 0; }
};

// Multi-head latent attention (DeepSeek-V2/V3/R1, Kimi-K2; modeling_deepseek.py). Queries go
// through an optional low-rank projection (q_lora_rank), keys and values through one shared
// latent of kv_lora_rank values plus a rope key of qk_rope_head_dim shared by all heads. The
// engines cache only that latent and the rope key: kv_lora_rank + qk_rope_head_dim values per
// token and layer, the same on every tensor-parallel rank.
struct LatentAttention {
  int64_t q_lora_rank = 0;       // 0: q is one hidden x heads*(nope+rope) matrix (V2-Lite)
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;  // per-head query/key part without rotary embedding
  int64_t qk_rope_head_dim = 0;  // per-head query part and shared key part with rotary embedding
  int64_t v_head_dim = 0;

  bool enabled() const { return kv_lora_rank > 0; }
  int64_t cached_values_per_token_layer() const { return kv_lora_rank + qk_rope_head_dim; }
};

// Layers that keep a fixed state per sequence instead of a KV cache that grows with the context:
// Mamba-1 (Jamba: modeling_jamba.py JambaMambaMixer), Mamba-2 (Nemotron-H: NemotronHMamba2Mixer) or
// Gated DeltaNet linear attention (Qwen3-Next: Qwen3NextGatedDeltaNet). The state is a convolution
// window and the recurrent (SSM) state, as vLLM's MambaStateShapeCalculator sizes them.
enum class StateLayerKind { Mamba1, Mamba2, GatedDeltaNet };

struct MambaLayers {
  StateLayerKind kind = StateLayerKind::Mamba1;
  std::vector<bool> per_layer;  // true where layer i is a state layer; empty = none
  int64_t d_state = 0;          // Mamba: SSM state size (Mamba-2: ssm_state_size)
  int64_t d_conv = 0;           // convolution taps (conv_kernel, linear_conv_kernel_dim)
  int64_t expand = 0;           // Mamba-1: inner width = expand x hidden
  int64_t dt_rank = 0;
  bool conv_bias = true;
  bool proj_bias = false;
  int64_t heads = 0;            // Mamba-2: mamba_num_heads x mamba_head_dim = inner width
  int64_t head_dim = 0;
  int64_t groups = 0;           // Mamba-2: n_groups of B and C
  int64_t key_heads = 0;        // Gated DeltaNet: linear_num_key_heads x linear_key_head_dim
  int64_t key_head_dim = 0;
  int64_t value_heads = 0;      // Gated DeltaNet: linear_num_value_heads x linear_value_head_dim
  int64_t value_head_dim = 0;
  // Bytes of one SSM-state value where the config names its dtype (Nemotron-H's
  // mamba_ssm_cache_dtype, which vLLM's NemotronHForCausalLMConfig adopts); 0 = the model dtype.
  double ssm_state_value_bytes = 0;

  int64_t count() const;
  bool IsMamba(int64_t layer) const {
    return layer >= 0 && layer < static_cast<int64_t>(per_layer.size()) && per_layer[static_cast<size_t>(layer)];
  }
  // Channels of the causal convolution: Mamba-1 its inner width; Mamba-2 inner + B and C
  // (2 x groups x d_state); Gated DeltaNet q, k and v (2 x key width + value width).
  int64_t conv_channels(int64_t hidden) const;
  // Values one sequence keeps per layer: the last d_conv - 1 inputs of the convolution and the
  // recurrent state (Mamba-1 inner x d_state; Mamba-2 heads x head_dim x d_state; Gated DeltaNet
  // value heads x value_head_dim x key_head_dim), as vLLM's mamba_utils state shapes.
  int64_t state_values_per_layer(int64_t hidden) const;
  int64_t conv_state_values_per_layer(int64_t hidden) const { return (d_conv - 1) * conv_channels(hidden); }
  // One layer's state in bytes for one sequence, whole model (not split by TP): the convolution
  // window in the model dtype and the SSM state in ssm_state_value_bytes (else the model dtype), as
  // vLLM keeps them (mamba_cache_dtype and mamba_ssm_cache_dtype "auto" = the model dtype).
  double state_bytes_per_layer(int64_t hidden, double model_dtype_bytes) const;
};

// A checkpoint published already quantised (config.json "quantization_config"): how many bits a
// quantised weight takes with its scales, and which weights stay in 16 bits.
enum class QuantMethod { None, Gptq, Awq, Fp8, Mxfp4, Bnb4, Bnb8, CompressedTensors, Other };

struct CheckpointQuant {
  QuantMethod method = QuantMethod::None;
  std::string name;          // quant_method as written ("gptq", "fp8", "mxfp4", ...)
  int64_t bits = 16;         // bits of a quantised weight before scales
  int64_t group_size = 0;    // weights per scale (GPTQ/AWQ group, MXFP4 block 32); 0 = per channel
  int64_t block_rows = 0;    // FP8 block-wise scales: one per block_rows x block_cols weights
  int64_t block_cols = 0;
  // compressed-tensors (llm-compressor): an asymmetric scheme stores a zero point per group;
  // config_groups beyond the first one with weights are counted at its bits (not modelled apart).
  bool zero_point = false;
  int64_t extra_groups = 0;
  // Which weight classes stay in 16 bits. Quantisers leave embeddings and lm_head alone unless the
  // config says otherwise; MXFP4 (GPT-OSS) quantises only the routed experts.
  bool experts_only = false;
  bool attention_unquantized = false;
  std::vector<std::string> unquantized_modules;  // modules_to_not_convert / ignored_layers, as written

  bool enabled() const { return method != QuantMethod::None; }
  double EffectiveBits() const;  // bits per quantised weight, scales and zero points included
};

struct Architecture {
  std::string model_type;  // config.json "model_type" of the text model ("llama", "qwen3", ...)
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;     // < heads: grouped-query attention
  int64_t head_dim = 0;     // MLA: the query/key head, qk_nope_head_dim + qk_rope_head_dim
  int64_t intermediate = 0; // dense MLP width
  int64_t vocab = 0;
  int64_t max_context = 0;  // max_position_embeddings; 0 = not stated
  bool tied_embeddings = false;
  bool gated_mlp = true;    // SwiGLU/GeGLU: gate, up and down projections
  bool qkv_bias = false;
  bool o_bias = false;      // attention_bias: true biases o_proj too (Llama, GPT-OSS); Qwen2 biases q, k, v only
  bool attention_sinks = false;  // GPT-OSS: one learned sink logit per head and layer
  bool expert_bias = false;      // GPT-OSS: biased expert projections and router
  bool qk_norm = false;     // per-head RMSNorm on q and k (Qwen3, Gemma 3)
  bool attn_output_gate = false;  // Qwen3-Next: q_proj also yields a sigmoid gate per head (2 x q width)
  int norms_per_layer = 2;  // Gemma 2/3 add post-attention and post-MLP norms: 4
  // Per layer: how many past tokens it attends to; 0 = all (full attention).
  std::vector<int64_t> window_per_layer;
  // Per layer: Llama 4's chunked local attention, attending only within its chunk of
  // attention_chunk_size tokens (aligned, not sliding); 0 = not chunked.
  std::vector<int64_t> chunk_per_layer;
  // Nemotron-H's hybrid_override_pattern: one block per layer, 'M' Mamba-2, '*' attention, '-' MLP,
  // 'E' MoE (Nemotron 3). Empty: every layer has attention (or a state mixer) and an MLP.
  std::string block_pattern;
  MixtureOfExperts moe;
  LatentAttention mla;
  MambaLayers mamba;
  VisionTower vision;
  CheckpointQuant quant;
  int64_t mtp_layers = 0;   // DeepSeek-V3's num_nextn_predict_layers: weights outside num_hidden_layers, not counted

  int64_t q_dim() const { return heads * head_dim; }
  int64_t kv_dim() const { return kv_heads * head_dim; }
  bool IsMoeLayer(int64_t layer) const;
  int64_t SlidingLayerCount() const;
  int64_t ChunkedLayerCount() const;
  int64_t WindowOf(int64_t layer) const;  // 0 = no sliding window
  int64_t ChunkOf(int64_t layer) const;   // 0 = not chunked
  bool HasAttention(int64_t layer) const;
  bool HasMlp(int64_t layer) const;
  int64_t AttentionLayerCount() const;
  int64_t BlockCount(char block) const;  // hybrid_override_pattern blocks of one kind (0 without a pattern)
};

}  // namespace labcheck::calc

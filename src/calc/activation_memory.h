// Activation memory of one training step, re-derived for today's decoders (RMSNorm, RoPE,
// grouped-query attention through a fused kernel, SwiGLU/GeGLU, MoE) as the Hugging Face
// implementations save tensors for backward. Counted in bytes per token; docs/calculators.md
// walks through every term.
#pragma once
#include <cstdint>

#include "calc/architecture.h"

namespace labcheck::calc {

// Bytes saved for backward per token in one decoder layer, BF16 activations.
struct LayerActivationBytes {
  double norms = 0;      // RMSNorm: FP32 copy of the input (4h) + normalised BF16 (2h), each norm
  double attention = 0;  // q/k/v input, q/k norms, RoPE copies, fused attention inputs/outputs
  double mlp = 0;        // MLP input, gate/up/activation/product (x k experts for MoE) and router
  double lora = 0;       // LoRA: FP32 copy of each adapted layer's input + rank-wide output

  double total() const { return norms + attention + mlp + lora; }
};

// `lora_rank` 0 means no adapters (full fine-tuning).
LayerActivationBytes LayerActivationsPerToken(const Architecture& arch, int64_t lora_rank);

// Activations of the whole model for `tokens` = batch x seq: all layers, or with gradient
// checkpointing each layer's input (2h) plus one layer recomputed during backward.
// The final norm and the lm_head input (8h per token) are kept in both cases.
double ActivationBytes(const Architecture& arch, int64_t tokens, bool checkpointing, int64_t lora_rank);

// The loss over the vocabulary at the start of backward: BF16 logits kept in the output (2V),
// FP32 log-probabilities saved by cross-entropy (4V), and the FP32 gradients of the log-probs and
// of the upcast logits (8V): 14 bytes x vocab per token.
double LogitsBytes(const Architecture& arch, int64_t tokens);

}  // namespace labcheck::calc

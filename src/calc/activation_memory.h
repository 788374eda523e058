// Activation memory of one training step, derived for today's decoders (RMSNorm, RoPE,
// grouped-query attention, SwiGLU/GeGLU, MoE) from which tensors autograd saves for backward:
// a linear layer saves its input only when its weight is trained (LoRA: when it has an adapter),
// a multiplication by a constant (RoPE's cos/sin) saves only the constant, fused attention saves
// q, k, v, its output and the log-sum-exp, eager attention the S x S scores. torch.compile
// recomputes pointwise chains in backward instead of saving them. docs/calculators.md ("What is
// counted") lists every term; docs/calculators-evidence.md has what was read for each layer kind.
#pragma once
#include <cstdint>

#include "calc/architecture.h"
#include "calc/training_settings.h"

namespace labcheck::calc {

// Bytes saved for backward per token in one decoder layer, BF16 activations.
struct LayerActivationBytes {
  double norms = 0;      // RMSNorm: FP32 copy of the input and normalised BF16 (compiled: the input)
  double attention = 0;  // q/k/v input, q/k norms, attention inputs/outputs, o_proj input, S² scores (eager)
  double state_mixer = 0;  // Mamba / Mamba-2 / Gated DeltaNet instead of attention (state_layer_activations.h)
  double mlp = 0;        // MLP input, gate/up/activation/product (x k experts for MoE) and router
  double lora = 0;       // LoRA: FP32 copies of adapted inputs (FP32 adapters) + rank-wide outputs

  double total() const { return norms + attention + state_mixer + mlp + lora; }
};

// One layer as it is: attention or a state mixer or neither (a Nemotron-H MLP block), an MLP or not.
LayerActivationBytes LayerActivationsPerToken(const Architecture& arch, const TrainingSettings& settings, int64_t layer);
// The first layer with attention and an MLP: every layer of a plain decoder.
LayerActivationBytes LayerActivationsPerToken(const Architecture& arch, const TrainingSettings& settings);

// Backward runs in stages, and what each keeps differs (docs/calculators.md, "Peak allocated and needed per GPU"):
//   loss stage:  saved activations + the logits + the loss's own gradient transient;
//   layer stage: saved activations + one layer recomputed (checkpointing) + that layer's
//                activation gradients.
// Autograd frees the logits once the loss and lm_head backward are done, before it reaches the
// first decoder layer, so the two stages never overlap: the peak takes the larger of them.

// Activations saved for the whole backward, for batch x seq tokens: all layers, each as its kind, or
// with gradient checkpointing each layer's input; with activation offload only the layers in flight stay on the
// GPU. The final norm (and the lm_head input when lm_head is trained) come on top.
double SavedActivationBytes(const Architecture& arch, const TrainingSettings& settings);

// The layer stage's own part: one layer's saved tensors recomputed (checkpointing only) and the
// gradients of its widest activations while its backward runs, for the layer where that is largest.
double LayerBackwardBytes(const Architecture& arch, const TrainingSettings& settings);

// The loss stage's own part: the loss over the vocabulary at the start of backward, per the loss
// kernel (see LossKind), with its gradient transient.
double LogitsBytes(const Architecture& arch, const TrainingSettings& settings);

// The FP32 logits a loop that holds the model output keeps from the loss to the end of backward
// (TrainingSettings::keep_logits); 0 otherwise. Counted beside both stages, not in LogitsBytes.
double KeptLogitsBytes(const Architecture& arch, const TrainingSettings& settings);

}  // namespace labcheck::calc

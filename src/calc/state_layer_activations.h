// Training activations of the layers that keep a state instead of attending: Jamba's Mamba
// (Mamba-1), Nemotron-H's Mamba-2 blocks and Qwen3-Next's Gated DeltaNet linear attention, counted
// from what the code a user trains with saves for backward: transformers' mixers on the fast
// kernels they call in training (mamba_ssm's selective_scan_fn and mamba_split_conv1d_scan_combined,
// causal_conv1d's causal_conv1d_fn, fla's chunk_gated_delta_rule and FusedRMSNormGated). Every term
// names the file and function it comes from in state_layer_activations.cpp; docs/calculators-evidence.md
// ("Training activations of state layers") walks through them.
#pragma once

#include "calc/architecture.h"
#include "calc/training_settings.h"

namespace labcheck::calc {

// Bytes one state mixer saves for backward per token. `trained`: its projections get weight
// gradients (full fine-tuning; LoRA puts no adapters on the mixers, as LoraParams counts), so each
// linear layer keeps its input; the kernels' own saved tensors are kept either way.
double StateMixerActivationBytes(const Architecture& arch, const TrainingSettings& settings, bool trained);

// The gradients a state mixer's backward holds at once, per token (the widest moment of its
// backward, beside the residual stream's gradients that activation_memory.cpp adds).
double StateMixerBackwardBytes(const Architecture& arch);

}  // namespace labcheck::calc

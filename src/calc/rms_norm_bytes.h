// What one RMSNorm saves for backward per token, shared by attention layers, state mixers and the
// final norm so the `--compile` rule is stated once.
#pragma once

#include "calc/byte_units.h"

namespace labcheck::calc {

// HF LlamaRMSNorm (and its Qwen/Mistral/Gemma/Jamba copies, torchtune's RMSNorm) upcasts to FP32,
// so backward keeps the FP32 input and the normalised BF16 tensor that multiplies the weight.
// Compiled, the chain is recomputed from the BF16 input (the Llama 3.2 3B "+ Compile" row of
// torchtune's table, data/models/calculator_constants.json "compile").
inline double RmsNormBytes(double width, bool compile) { return compile ? kBf16 * width : (kFp32 + kBf16) * width; }

}  // namespace labcheck::calc

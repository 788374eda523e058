// Bytes of a checkpoint published quantised (config.json quantization_config): the weights the
// method quantises at its effective bits (scales included), everything else in 16 bits.
#pragma once
#include <cstdint>

#include "calc/architecture.h"
#include "calc/param_count.h"
#include "core/text.h"

namespace labcheck::calc {

struct CheckpointWeights {
  int64_t quantized_params = 0;  // in the quantised format
  int64_t bf16_params = 0;       // embeddings, lm_head, norms, router, and what the config leaves out
  double bytes = 0;
};

// Which classes a method quantises: MXFP4 (GPT-OSS) the routed experts only; GPTQ, AWQ, FP8 and
// bitsandbytes every decoder linear layer but the MoE router (vLLM builds the router unquantised),
// minus attention when modules_to_not_convert names self_attn. Embeddings, lm_head, norms and a
// vision tower stay 16-bit.
CheckpointWeights CountCheckpointWeights(const ParamCounts& counts, const CheckpointQuant& quant);

// "FP8, блоки 128 × 128: 8.002 бита на вес; в BF16: эмбеддинги, lm_head, нормы, роутер"
Text CheckpointQuantText(const CheckpointQuant& quant);

}  // namespace labcheck::calc

// What the step trace is built from: the shapes of one decoder layer's weights, the tokens of a
// micro-batch, and the dtypes vram's estimate uses (training_memory.h), for the models and settings
// a trace is written for. Everything else gets the reason it is not modelled, and vram keeps its
// flat allocator-cache fraction there (and says so).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "calc/training_settings.h"
#include "core/status.h"

namespace labcheck::calc::allocator {

struct TraceLinear {
  std::string name;  // "q_proj", ...
  int64_t in = 0;
  int64_t out = 0;
  bool adapted = false;    // a LoRA adapter on it (lora_A rank x in, lora_B out x rank)
  bool trained = false;    // its weight is trained (full fine-tuning)
  bool quantized = false;  // NF4 (QLoRA)
  bool saves_input = false;  // the estimate counts its input among the saved activations

  int64_t params() const { return in * out; }
};

struct TraceLayer {
  int64_t hidden = 0;
  int64_t q = 0;    // heads x head_dim
  int64_t kv = 0;   // kv_heads x head_dim
  int64_t heads = 0;
  int64_t intermediate = 0;
  bool gated_mlp = true;
  bool qk_norm = false;
  int norms = 2;
  std::vector<TraceLinear> linears;  // forward order: q, k, v, o, then gate, up, down (fc1, fc2 ungated)
  int64_t norm_params = 0;           // RMSNorm weights of one layer (q/k norms included)
  int64_t bias_params = 0;

  const TraceLinear* Find(const std::string& name) const;
};

struct TraceModel {
  TraceLayer layer;
  int64_t layers = 0;
  int64_t vocab = 0;
  int64_t embedding_params = 0;
  int64_t head_params = 0;          // 0 when lm_head is tied to the embedding
  int64_t final_norm_params = 0;
  int64_t tokens = 0;               // batch x seq of one micro-batch
  int64_t lora_rank = 0;
  double weight_bytes = 2;          // BF16 (FP32 master weights are not traced)
  double adapter_bytes = 2;         // PEFT's FP32 or BF16 adapters
  double state_bytes = 2;           // per optimizer state element
  double grad_bytes = 2;
  double nf4_data_bytes = 0.5;      // packed NF4 codes per weight
  double nf4_state_bytes = 0;       // absmax and nested absmax per weight (QuantState)

  // Parameters of one decoder layer in its FSDP unit, and their bytes (NF4 codes for QLoRA).
  double LayerUnitBytes() const;
  double RootUnitBytes() const;     // embeddings, final norm and (untied) lm_head, BF16
};

// The shape, or why the trace does not cover these settings (vram then keeps the flat fraction).
Result<TraceModel> TraceModelFor(const ModelInput& model, const TrainingSettings& settings, const CalcConstants& constants);

}  // namespace labcheck::calc::allocator

// The step program's inner class, shared by step_program.cpp (the step, the loss) and
// layer_program.cpp (one decoder layer forward and backward).
#pragma once
#include <cstdint>
#include <vector>

#include "calc/allocator/param_hooks.h"
#include "calc/allocator/step_program.h"

namespace labcheck::calc::allocator {

// What one adapted linear's LoRA branch keeps for backward (PEFT's dropout output and mask, lora_A's output).
struct LoraSaved {
  Tensor dropout = kNone;
  Tensor mask = kNone;
  Tensor lora_a = kNone;
};

// One decoder layer's tensors kept for backward.
struct LayerSaved {
  Tensor n1_fp32 = kNone, n1_bf16 = kNone, n1_out = kNone;  // input_layernorm, its output (q/k/v input)
  Tensor q = kNone, k = kNone, v = kNone, lse = kNone, attn = kNone, o_in = kNone;
  Tensor qn_fp32 = kNone, qn_bf16 = kNone, kn_fp32 = kNone, kn_bf16 = kNone;  // q/k norms
  Tensor n2_fp32 = kNone, n2_bf16 = kNone, n2_out = kNone;  // post_attention_layernorm, its output (MLP input)
  Tensor gate = kNone, up = kNone, act = kNone, prod = kNone;
  std::vector<LoraSaved> lora;  // per linear
};

// What the loss's forward leaves for its backward.
struct LossSaved {
  std::vector<Tensor> logits;     // BF16 logits (one per chunk)
  std::vector<Tensor> log_probs;  // FP32 log-softmax (one per chunk)
  Tensor kept = kNone;            // the FP32 logits the loop holds in the model output
  Tensor head_input = kNone;      // the fused loss's gradient of the hidden state, made in forward
};

class Program {
 public:
  Program(TraceBuilder& b, const TraceModel& m, const TrainingSettings& s, ParamHooks& hooks, const LoopOptions& loop);
  void Run();

 private:
  // step_program.cpp
  void Step(int step);
  LossSaved LossForward();
  Tensor LossBackward(LossSaved& loss);
  Tensor HeadBackwardChunk(Tensor grad_logits, bool first);

  // layer_program.cpp
  Tensor Layer(int64_t index, Tensor x, bool save, bool recompute, bool free_input, LayerSaved& sv);
  Tensor Attention(int64_t index, Tensor x, bool save, bool recompute, bool free_input, LayerSaved& sv);
  Tensor Mlp(int64_t index, Tensor h1, bool save, bool recompute, LayerSaved& sv);
  Tensor Norm(Tensor x, int64_t width, bool save, Tensor& fp32, Tensor& bf16);
  Tensor Linear(int64_t layer, size_t index, Tensor x, bool save, bool recompute, LayerSaved& sv);
  Tensor Rope(int64_t width);
  Tensor LayerBackward(int64_t index, Tensor grad, LayerSaved& sv);
  Tensor MlpBackward(int64_t index, Tensor grad, LayerSaved& sv);
  Tensor AttentionBackward(int64_t index, Tensor grad, LayerSaved& sv);
  Tensor NormBackward(Tensor grad, int64_t width, Tensor& fp32, Tensor& bf16);
  Tensor LinearBackward(int64_t layer, size_t index, Tensor grad, LayerSaved& sv);
  Tensor RopeBackward(Tensor grad, int64_t width);
  size_t LinearIndex(const char* name) const;

  // `per_token` bytes for every token of the micro-batch, on the compute stream.
  Tensor Act(double per_token, const char* source);
  void Free(Tensor& t) { b_.Free(t); }
  void Accumulate(Tensor& into, Tensor& other);

  TraceBuilder& b_;
  const TraceModel& m_;
  const TrainingSettings& s_;
  ParamHooks& hooks_;
  const LoopOptions& loop_;
  const double tokens_;
  Tensor kept_logits_ = kNone;
};

}  // namespace labcheck::calc::allocator

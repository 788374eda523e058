// The step: forward through the layers, the loss, backward, the optimizer, and the loop's own
// frees and synchronisations. The layer is in layer_program.cpp.
#include "calc/allocator/step_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "calc/allocator/step_program_internal.h"

namespace labcheck::calc::allocator {
namespace {

// torchtune's CEWithChunkedOutputLoss(num_output_chunks=8) (activation_memory.cpp's kLossChunks).
constexpr int kLossChunks = 8;

}  // namespace

Program::Program(TraceBuilder& b, const TraceModel& m, const TrainingSettings& s, ParamHooks& hooks, const LoopOptions& loop)
    : b_(b), m_(m), s_(s), hooks_(hooks), loop_(loop), tokens_(static_cast<double>(m.tokens)) {}

Tensor Program::Act(double per_token, const char* source) { return b_.Alloc(per_token * tokens_, kCompute, source); }

// autograd's InputBuffer adds a second gradient into the first and drops it.
void Program::Accumulate(Tensor& into, Tensor& other) {
  if (into == kNone) {
    into = other;
    other = kNone;
    return;
  }
  Free(other);
}

void Program::Run() {
  b_.Stage("load");
  hooks_.Load(b_);
  b_.Stage("loop start");
  if (loop_.empty_cache_before_loop) b_.EmptyCache(loop_.reset_source);
  b_.ResetPeak(loop_.reset_source);
  for (int step = 1; step <= loop_.steps; ++step) Step(step);
}

void Program::Step(int step) {
  const std::string at = fmt::format("step {}: ", step);
  b_.Stage(at + "forward");
  std::vector<Tensor> inputs(static_cast<size_t>(m_.layers), kNone);
  std::vector<LayerSaved> saved(static_cast<size_t>(m_.layers));
  hooks_.Embedding(b_, true, false);
  Tensor x = Act(2.0 * m_.layer.hidden, "hf.llama.embedding");
  hooks_.Embedding(b_, false, false);
  for (int64_t i = 0; i < m_.layers; ++i) {
    b_.Stage(fmt::format("{}forward, layer {}", at, i));
    const bool ckpt = s_.checkpointing;
    if (ckpt) inputs[static_cast<size_t>(i)] = x;
    x = Layer(i, x, !ckpt, false, !ckpt, saved[static_cast<size_t>(i)]);
  }
  b_.Stage(at + "final norm and loss");
  Tensor norm_fp32 = kNone, norm_bf16 = kNone;
  Tensor head_in = Norm(x, m_.layer.hidden, true, norm_fp32, norm_bf16);
  Free(x);
  hooks_.Head(b_, true, false);
  LossSaved loss = LossForward();
  hooks_.Head(b_, false, false);
  if (s_.method != Method::Full) Free(head_in);  // lm_head keeps its input only when it is trained
  b_.Stage(at + "loss backward");
  hooks_.Head(b_, true, true);
  Tensor grad = LossBackward(loss);
  hooks_.Head(b_, false, true);
  Free(head_in);
  grad = NormBackward(grad, m_.layer.hidden, norm_fp32, norm_bf16);
  for (int64_t i = m_.layers - 1; i >= 0; --i) {
    b_.Stage(fmt::format("{}backward, layer {}", at, i));
    LayerSaved& sv = saved[static_cast<size_t>(i)];
    hooks_.LayerBackward(b_, i, true);
    Tensor recomputed = kNone;
    if (s_.checkpointing) recomputed = Layer(i, inputs[static_cast<size_t>(i)], true, true, false, sv);
    grad = LayerBackward(i, grad, sv);
    Free(recomputed);
    if (s_.checkpointing && i > 0) Free(inputs[static_cast<size_t>(i)]);
    hooks_.LayerBackward(b_, i, false);
  }
  if (s_.checkpointing) Free(inputs[0]);  // the embedding output, layer 0's saved input
  hooks_.Embedding(b_, true, true);
  hooks_.EmbeddingGrad(b_);
  hooks_.Embedding(b_, false, true);
  Free(grad);
  hooks_.BackwardEnd(b_);
  if (loop_.sync_after_backward) b_.SynchronizeAll(loop_.sync_source);
  b_.Stage(at + "optimizer step");
  hooks_.OptimizerStep(b_);
  hooks_.ZeroGrad(b_, loop_.zero_grad_source);
  if (loop_.sync_after_step) b_.SynchronizeAll(loop_.sync_source);
  b_.Free(kept_logits_, loop_.output_source);
}

// transformers' LlamaForCausalLM and its loss (full), torchtune's chunked output and
// CEWithChunkedOutputLoss (chunked), a fused linear-cross-entropy kernel (fused): the tensors that
// LogitsBytes counts, one by one.
LossSaved Program::LossForward() {
  LossSaved loss;
  const double v = static_cast<double>(m_.vocab);
  const double h = static_cast<double>(m_.layer.hidden);
  if (s_.loss == LossKind::Fused) {
    loss.head_input = Act(2 * h, "liger.fused_linear_cross_entropy");  // grad of the hidden state, in forward
    const int chunks = static_cast<int>(std::ceil(v / h));
    for (int c = 0; c < chunks; ++c) {
      Tensor logits = Act(4 * h, "liger.fused_linear_cross_entropy");
      Tensor grad = Act(4 * h, "liger.fused_linear_cross_entropy");
      Free(logits);
      Free(grad);
    }
    return loss;
  }
  const int chunks = s_.loss == LossKind::Chunked ? kLossChunks : 1;
  for (int c = 0; c < chunks; ++c) loss.logits.push_back(Act(2 * v / chunks, chunks > 1 ? "torchtune.chunked_output" : "hf.llama.lm_head"));
  if (s_.keep_logits) {
    // `logits = logits.float()` in the model; the loop holds the output (fsdp_qlora's train.py).
    loss.kept = Act(4 * v, "hf.llama.logits_float");
    Free(loss.logits[0]);
    loss.logits.clear();
    Tensor shifted = Act(4 * v, "hf.llama.shift_logits");  // logits[..., :-1, :].contiguous()
    loss.log_probs.push_back(Act(4 * v, "torch.nn.functional.cross_entropy"));
    Free(shifted);
    kept_logits_ = loss.kept;
    return loss;
  }
  for (int c = 0; c < chunks; ++c) {
    Tensor upcast = Act(4 * v / chunks, chunks > 1 ? "torchtune.ce_chunked_output_loss" : "hf.loss.for_causal_lm");
    // Compiled, the log-softmax is recomputed in backward rather than saved (LogitsBytes).
    loss.log_probs.push_back(s_.compile ? kNone : Act(4 * v / chunks, "torch.nn.functional.cross_entropy"));
    Free(upcast);
  }
  return loss;
}

// lm_head's backward for one chunk of logits: the hidden state's gradient, and lm_head's own when
// it is trained (a second chunk's weight gradient is added into the first).
Tensor Program::HeadBackwardChunk(Tensor grad_logits, bool first) {
  const int chunks = static_cast<int>(std::max<size_t>(1, s_.loss == LossKind::Chunked ? kLossChunks : 1));
  Tensor grad_hidden = Act(2.0 * m_.layer.hidden / chunks, "torch.autograd.mm_backward");
  if (s_.method == Method::Full) {
    if (first) {
      hooks_.HeadGrad(b_);
    } else {
      Tensor partial = b_.Alloc(static_cast<double>(m_.vocab * m_.layer.hidden) * m_.grad_bytes, kCompute, "torch.autograd.accumulate_grad");
      Free(partial);
    }
  }
  Free(grad_logits);
  return grad_hidden;
}

Tensor Program::LossBackward(LossSaved& loss) {
  const double v = static_cast<double>(m_.vocab);
  if (s_.loss == LossKind::Fused) {
    if (s_.method == Method::Full) hooks_.HeadGrad(b_);
    return loss.head_input;
  }
  const int chunks = static_cast<int>(loss.log_probs.size());
  std::vector<Tensor> grads;
  for (int c = chunks - 1; c >= 0; --c) {
    Tensor& log_probs = loss.log_probs[static_cast<size_t>(c)];
    Tensor grad_log_probs = Act(4 * v / chunks, "torch.autograd.nll_loss_backward");
    Tensor grad_upcast = Act(4 * v / chunks, "torch.autograd.log_softmax_backward");
    Free(grad_log_probs);
    Free(log_probs);
    if (s_.keep_logits) {
      Tensor grad_full = Act(4 * v, "torch.autograd.slice_backward");  // the unshifted logits' gradient
      Free(grad_upcast);
      grad_upcast = grad_full;
    }
    Tensor grad_logits = Act(2 * v / chunks, "torch.autograd.to_copy_backward");
    Free(grad_upcast);
    if (!loss.logits.empty()) b_.Free(loss.logits[static_cast<size_t>(c)], loop_.output_source);
    grads.push_back(HeadBackwardChunk(grad_logits, c == chunks - 1));
  }
  if (grads.size() == 1) return grads[0];
  Tensor grad = Act(2.0 * m_.layer.hidden, "torch.autograd.cat_backward");  // the chunks' gradients joined
  for (Tensor& g : grads) Free(g);
  return grad;
}

Trace BuildStepTrace(const TraceModel& model, const TrainingSettings& settings, ParamHooks& hooks, const LoopOptions& loop) {
  TraceBuilder builder(loop.framework);
  Program(builder, model, settings, hooks, loop).Run();
  return std::move(builder).Finish();
}

}  // namespace labcheck::calc::allocator

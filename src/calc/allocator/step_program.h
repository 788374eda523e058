// The activations of a training step as tensors, in the order autograd and the model code allocate
// and free them: one decoder layer's forward (saving for backward, or under checkpointing not),
// its recomputation and backward, the loss over the vocabulary and its gradient, for
// `steps` steps after the model load. Sizes come from the same terms as vram's estimate
// (activation_memory.cpp): a layer saves what LayerActivationsPerToken counts, split into the
// tensors that hold it; the transients between (an RMSNorm's FP32 products, RoPE's halves, LoRA's
// branch, a QLoRA weight dequantised for its matmul, the gradients of activations) are the
// model code's own. The parameters, their gradients and optimizer states are the hooks' (param_hooks.h).
#pragma once
#include <string>

#include "calc/allocator/param_hooks.h"
#include "calc/allocator/step_trace.h"
#include "calc/allocator/trace_shapes.h"
#include "calc/training_settings.h"

namespace labcheck::calc::allocator {

// What the training loop around the model does with memory.
struct LoopOptions {
  std::string framework;
  // fsdp_qlora's train.py keeps the model output (the FP32 logits) until `output = None`, after the
  // optimizer step and zero_grad; other loops drop it with the loss's graph.
  bool output_until_step_end = false;
  // The CPU reads the loss after backward, which synchronises the device (HF Trainer's NaN/inf
  // filter, fsdp_qlora's loss.item(), every step); or after the optimizer step (torchtune's
  // loss_to_log, every step).
  bool sync_after_backward = true;
  bool sync_after_step = false;
  // The loop empties the cache before it starts (torchtune's cleanup_before_training).
  bool empty_cache_before_loop = false;
  int steps = 3;  // the first allocates the optimizer states; the next two run in the steady state
  // Source keys (data/step_trace_sources.json) of what the loop itself does: where it resets the peak
  // statistics (the published figures count from there), where it lets the model output go (the
  // logits die with the loss's graph), its zero_grad, and the syncs above.
  std::string reset_source = "loop.reset_peak_memory_stats";
  std::string output_source = "hf.trainer.training_step";
  std::string zero_grad_source = "hf.trainer.zero_grad";
  std::string sync_source = "hf.trainer.logging_nan_inf_filter";
};

Trace BuildStepTrace(const TraceModel& model, const TrainingSettings& settings, ParamHooks& hooks, const LoopOptions& loop);

}  // namespace labcheck::calc::allocator

#include "calc/allocator/training_trace.h"

#include "calc/allocator/param_hooks.h"
#include "calc/allocator/step_program.h"
#include "calc/allocator/trace_shapes.h"

namespace labcheck::calc::allocator {

Result<Trace> TrainingTrace(const ModelInput& model, const TrainingSettings& s, const CalcConstants& k) {
  auto shape = TraceModelFor(model, s, k);
  if (!shape.ok()) return shape.status();
  LoopOptions loop;
  std::unique_ptr<ParamHooks> hooks;
  if (s.gpus <= 1) {
    hooks = SingleGpuParams(*shape, s);
    loop.framework = "one GPU: weights on the GPU, HF Trainer's loop";
  } else if (s.fsdp_version == 1) {
    hooks = Fsdp1Params(*shape, s);
    loop.framework = s.keep_logits ? "FSDP1 as fsdp_qlora's train.py runs it" : "FSDP1 as accelerate's FSDP plugin runs it under HF Trainer";
    if (s.keep_logits) {  // train.py: loss.item() after backward, `output = None` at the step's end
      loop.sync_source = "fsdp_qlora.loss_item";
      loop.reset_source = "fsdp_qlora.reset_peak_memory_stats";
      loop.output_source = "fsdp_qlora.output_none";
      loop.zero_grad_source = "fsdp_qlora.zero_grad";
    }
  } else {
    hooks = Fsdp2Params(*shape, s);
    loop.framework = "FSDP2 as torchtune's distributed recipes run it";
    loop.empty_cache_before_loop = true;
    loop.reset_source = "torchtune.cleanup_before_training";
    loop.output_source = "torchtune.loss_step";
    loop.zero_grad_source = "torchtune.zero_grad";
    loop.sync_after_backward = false;
    loop.sync_after_step = true;
    loop.sync_source = "torchtune.loss_item";
  }
  loop.output_until_step_end = s.keep_logits;
  return BuildStepTrace(*shape, s, *hooks, loop);
}

}  // namespace labcheck::calc::allocator

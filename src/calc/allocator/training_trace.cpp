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
    loop.framework = "one GPU: weights on the GPU, a plain training loop";
  } else if (s.fsdp_version == 1) {
    hooks = Fsdp1Params(*shape, s);
    loop.framework = s.keep_logits ? "FSDP1 as fsdp_qlora's train.py runs it" : "FSDP1 as accelerate's FSDP plugin runs it under HF Trainer";
    loop.sync_after_backward = s.keep_logits;  // train.py: loss.item() after backward
    if (s.keep_logits) loop.reset_source = "fsdp_qlora.reset_peak_memory_stats";
  } else {
    hooks = Fsdp2Params(*shape, s);
    loop.framework = "FSDP2 as torchtune's distributed recipes run it";
  }
  loop.output_until_step_end = s.keep_logits;
  return BuildStepTrace(*shape, s, *hooks, loop);
}

}  // namespace labcheck::calc::allocator

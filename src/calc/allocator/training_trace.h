// The step trace for a vram estimate's settings: which framework's hooks and loop the settings
// describe, and the trace built from them (step_program.h), or why none is modelled.
//   - one GPU: the weights loaded on the GPU, HF Trainer's loop (which torchtune's single-device
//     recipes resemble in memory: the loss alone kept, the device waited for once a step);
//   - FSDP1 over several GPUs: fsdp_qlora's train.py when the loop holds the model output
//     (--keep-logits, as train.py does), else accelerate's FSDP plugin under HF Trainer, which wraps
//     and shards the same way;
//   - FSDP2 over several GPUs: torchtune's distributed recipes.
#pragma once
#include "calc/allocator/step_trace.h"
#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "calc/training_settings.h"
#include "core/status.h"

namespace labcheck::calc::allocator {

Result<Trace> TrainingTrace(const ModelInput& model, const TrainingSettings& settings, const CalcConstants& constants);

}  // namespace labcheck::calc::allocator

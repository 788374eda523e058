// Who holds the weights, gradients and optimizer states while the step program (step_program.h)
// runs the model: one GPU (single_gpu_params.cpp), PyTorch FSDP1 (fsdp1_params.cpp) or FSDP2
// (fsdp2_params.cpp). The step program emits the activations and calls these hooks where the
// framework gathers, frees or reduces parameters, in the order the framework's hooks fire.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "calc/allocator/step_trace.h"
#include "calc/allocator/trace_shapes.h"
#include "calc/training_settings.h"

namespace labcheck::calc::allocator {

// Which pass over a LoRA adapter (FSDP1 wraps each adapter matrix as a unit of its own).
enum class AdapterPass { Forward, Recompute, Backward };

class ParamHooks {
 public:
  virtual ~ParamHooks() = default;
  // Model load (and, sharded, the wrap), up to where the training loop starts.
  virtual void Load(TraceBuilder& b) = 0;
  // Around the embedding's forward (`backward`: its backward) and lm_head's with the loss: FSDP
  // gathers the root unit before the embedding and keeps it to the end of backward; units of their
  // own (torchtune's custom_sharded_layers) are gathered around each use.
  virtual void Embedding(TraceBuilder& b, bool begin, bool backward) { (void)b, (void)begin, (void)backward; }
  virtual void Head(TraceBuilder& b, bool begin, bool backward) { (void)b, (void)begin, (void)backward; }
  virtual void LayerForward(TraceBuilder& b, int64_t layer, bool begin, bool recompute) { (void)b, (void)layer, (void)begin, (void)recompute; }
  virtual void Adapter(TraceBuilder& b, int64_t layer, size_t linear, bool begin, AdapterPass pass) {
    (void)b, (void)layer, (void)linear, (void)begin, (void)pass;
  }
  virtual void LayerBackward(TraceBuilder& b, int64_t layer, bool begin) { (void)b, (void)layer, (void)begin; }
  // A layer weight's gradient was computed (full fine-tuning); its LoRA adapter's (LoRA/QLoRA).
  virtual void WeightGrad(TraceBuilder& b, int64_t layer, size_t linear) = 0;
  virtual void AdapterGrad(TraceBuilder& b, int64_t layer, size_t linear) = 0;
  // lm_head's, the final norm's and the embedding's gradients (full fine-tuning).
  virtual void HeadGrad(TraceBuilder& b) = 0;
  virtual void EmbeddingGrad(TraceBuilder& b) = 0;
  virtual void BackwardEnd(TraceBuilder& b) { (void)b; }
  virtual void OptimizerStep(TraceBuilder& b) = 0;
  // `source`: the loop's zero_grad call (a key of data/step_trace_sources.json).
  virtual void ZeroGrad(TraceBuilder& b, std::string_view source) = 0;
};

std::unique_ptr<ParamHooks> SingleGpuParams(const TraceModel& model, const TrainingSettings& settings);
std::unique_ptr<ParamHooks> Fsdp1Params(const TraceModel& model, const TrainingSettings& settings);
std::unique_ptr<ParamHooks> Fsdp2Params(const TraceModel& model, const TrainingSettings& settings);

}  // namespace labcheck::calc::allocator

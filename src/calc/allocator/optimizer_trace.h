// The optimizer's allocations for a list of parameter tensors (or FSDP flat shards), shared by the
// parameter hooks: the states created at the first step and the foreach step's temporaries.
#pragma once
#include <vector>

#include "calc/allocator/step_trace.h"
#include "calc/training_settings.h"

namespace labcheck::calc::allocator {

class OptimizerTrace {
 public:
  // `state_bytes` per element of a state (the parameter's dtype; 8-bit states are one byte).
  OptimizerTrace(Optimizer optimizer, double state_bytes, StreamId stream);

  // optimizer.step() over parameters of `elements` each (in model.parameters() order).
  void Step(TraceBuilder& b, const std::vector<double>& elements);
  // One parameter's step, as the optimizer-in-backward hook runs it (its own state slot `index`).
  void StepOne(TraceBuilder& b, size_t index, double elements);

 private:
  void InitState(TraceBuilder& b, size_t index, double elements);

  Optimizer optimizer_;
  double state_bytes_;
  StreamId stream_;
  std::vector<std::vector<TraceBuilder::Tensor>> states_;  // per parameter, kept for the run
};

}  // namespace labcheck::calc::allocator

// torch.optim.AdamW creates exp_avg and exp_avg_sq per parameter at its first step (_init_group,
// torch.zeros_like(p, memory_format=torch.preserve_format)); its default foreach step makes one
// temporary per parameter for sqrt(exp_avg_sq) (_multi_tensor_adamw: `exp_avg_sq_sqrt =
// torch._foreach_sqrt(device_exp_avg_sqs)`), all at once; fused=True updates in one kernel, and keeps
// `step` on the device. bitsandbytes' 8-bit AdamW keeps two uint8 states and an FP32 absmax per
// block of 256 (Optimizer8bit.init_state); its paged optimizers keep the states in CUDA unified
// memory, outside PyTorch's allocator. SGD without momentum keeps nothing.
#include "calc/allocator/optimizer_trace.h"

namespace labcheck::calc::allocator {
namespace {

constexpr double kEightBitBlock = 256;

}  // namespace

OptimizerTrace::OptimizerTrace(Optimizer optimizer, double state_bytes, StreamId stream)
    : optimizer_(optimizer), state_bytes_(state_bytes), stream_(stream) {}

void OptimizerTrace::InitState(TraceBuilder& b, size_t index, double elements) {
  if (states_.size() <= index) states_.resize(index + 1);
  std::vector<TraceBuilder::Tensor>& state = states_[index];
  if (!state.empty()) return;
  switch (optimizer_) {
    case Optimizer::AdamW:
    case Optimizer::AdamWFused:
      state.push_back(b.Alloc(elements * state_bytes_, stream_, "torch.optim.adamw.init_group"));
      state.push_back(b.Alloc(elements * state_bytes_, stream_, "torch.optim.adamw.init_group"));
      if (optimizer_ == Optimizer::AdamWFused) state.push_back(b.Alloc(uint64_t{4}, stream_, "torch.optim.adamw.init_group"));
      break;
    case Optimizer::AdamW8bit:
      for (int i = 0; i < 2; ++i) {
        state.push_back(b.Alloc(elements, stream_, "bnb.optim.optimizer8bit.init_state"));
        state.push_back(b.Alloc(elements / kEightBitBlock * 4, stream_, "bnb.optim.optimizer8bit.init_state"));
      }
      break;
    case Optimizer::PagedAdamW:
    case Optimizer::PagedAdamW8bit:
    case Optimizer::Sgd:
      state.push_back(TraceBuilder::kNone);  // nothing in PyTorch's allocator; marks the slot as done
      break;
  }
}

void OptimizerTrace::Step(TraceBuilder& b, const std::vector<double>& elements) {
  for (size_t i = 0; i < elements.size(); ++i) InitState(b, i, elements[i]);
  if (optimizer_ != Optimizer::AdamW) return;
  std::vector<TraceBuilder::Tensor> sqrt;
  for (double e : elements) sqrt.push_back(b.Alloc(e * state_bytes_, stream_, "torch.optim.adamw.foreach_sqrt"));
  for (TraceBuilder::Tensor& t : sqrt) b.Free(t);
}

void OptimizerTrace::StepOne(TraceBuilder& b, size_t index, double elements) {
  InitState(b, index, elements);
  if (optimizer_ != Optimizer::AdamW) return;
  TraceBuilder::Tensor sqrt = b.Alloc(elements * state_bytes_, stream_, "torch.optim.adamw.foreach_sqrt");
  b.Free(sqrt);
}

}  // namespace labcheck::calc::allocator

// GPU memory of a training step, as a breakdown. The peak that PyTorch's allocator reaches is
//   weights + optimizer states + max(saved activations [+ buffers]
//                                      + max(logits and loss gradient, a layer's backward),
//                                    gradients + optimizer step buffer)
// because autograd frees the logits before it reaches the decoder layers (the two stages of
// backward never overlap), with zero_grad(set_to_none=True) gradients appear while backward frees activations,
// and the foreach AdamW step allocates one state-sized buffer. With the optimizer applied in the
// backward pass only the largest gradient exists at once, beside the activations. Paged optimizer
// states live in CUDA unified memory (outside the allocator) and offloaded parts in CPU RAM: both
// are listed, neither is in the peak. The CUDA context and the allocator's cache come on top and
// are not in torch.cuda.max_memory_allocated().
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "calc/training_settings.h"
#include "core/text.h"

namespace labcheck::calc {

enum class MemoryPhase {
  Always,            // weights, optimizer states
  ForwardBackward,   // saved activations: alive through the whole backward
  OptimizerStep,     // gradients and the step's temporary buffer
  OutsideAllocator,  // CUDA context, allocator cache
  Paged,             // bitsandbytes paged optimizer states: unified memory, spill to CPU RAM
  Cpu,               // offloaded to CPU RAM (FSDP/ZeRO offload)
  LossBackward,      // logits and the loss's gradient: freed before backward reaches the layers
  LayerBackward,     // one layer recomputed and its gradients, dequantisation: once the logits are gone
};

struct MemoryComponent {
  std::string id;  // "weights", "gradients", ... (stable, used in --json)
  Text label;
  std::optional<double> bytes;  // per GPU; nullopt: needs the architecture
  Text note;                    // how it is counted
  MemoryPhase phase = MemoryPhase::Always;
};

struct TrainingMemory {
  std::vector<MemoryComponent> components;
  int64_t total_params = 0;
  int64_t trainable_params = 0;  // adapters for LoRA/QLoRA; nullopt-like 0 when unknown
  bool trainable_known = true;
  // What torch.cuda.max_memory_allocated() should show; nullopt when a part needs the architecture.
  std::optional<double> peak_allocated_bytes;
  // Peak plus CUDA context and allocator cache: what nvidia-smi shows and what must fit.
  std::optional<double> peak_total_bytes;
  // Lower bound when the architecture is unknown: the parts that depend on size alone.
  double known_bytes = 0;
  double paged_bytes = 0;  // paged optimizer states (unified memory)
  double cpu_bytes = 0;    // offloaded to CPU RAM, per GPU's share
  // Host RAM the offloaded state needs on a machine holding all the GPUs (cpu_bytes x gpus), and
  // with DeepSpeed's estimator margin for pinned buffers and fragmentation. Only what lab_check
  // counts: the processes themselves (Python, torch, CUDA libraries) and checkpoint loading come on top.
  int host_gpus = 1;
  double host_ram_bytes = 0;
  double host_ram_planned_bytes = 0;

  const MemoryComponent* Find(const std::string& id) const;
};

TrainingMemory EstimateTrainingMemory(const ModelInput& model, const TrainingSettings& settings,
                                      const CalcConstants& constants);

nlohmann::json TrainingMemoryJson(const TrainingMemory& memory);

}  // namespace labcheck::calc

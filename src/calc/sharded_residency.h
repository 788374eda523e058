// What stays on each GPU, beyond its own shards, when the weights are sharded and gathered unit by
// unit (FSDP, ZeRO-3, hybrid sharding, or FSDP's parameter CPU offload). The shards themselves
// (or nothing, when offloaded) are counted by training_memory.cpp; this adds the unsharded copies
// that exist while a unit computes, split by the stage of the step they belong to:
//
// PyTorch FSDP (fully_shard / FSDP1 with BACKWARD_PRE), per unit:
//   - the root unit (whatever no decoder layer holds: the embeddings and lm_head unless they are
//     their own units) is not resharded after forward, "since for training, the parameters would be
//     freed and all-gathered immediately" (torch/distributed/fsdp/_fully_shard/_fsdp_state.py,
//     _lazy_init; FSDP1 _post_forward_reshard keeps the root too), and its gradients wait for the
//     root's post-backward at the very end: gathered from the first forward to the end of backward;
//   - the loss stage: lm_head gathered for its backward (when it is its own unit) with its unsharded
//     gradient before the reduce-scatter, and `prefetch` decoder layers all-gathered ahead;
//   - a layer's backward: the layer gathered, `prefetch` layers ahead, the layer's unsharded
//     gradient (full fine-tuning), and with CPU offload its reduce-scattered shard waiting for the
//     device-to-host copy;
//   - reshard_after_forward=false (SHARD_GRAD_OP): every layer stays gathered from its forward
//     to its backward, so at the turn all of them are.
// DeepSpeed ZeRO-3 gathers per module: what the forward releases is bounded by
// stage3_max_live_parameters (kept for reuse in backward), the fetch ahead by
// stage3_prefetch_bucket_size, and gradients pass through a reduce bucket of reduce_bucket_size.
// Sizes are per GPU, in the dtype the engine gathers in (BF16, or NF4 storage for QLoRA layers).
#pragma once
#include <vector>

#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "calc/training_memory.h"
#include "calc/training_settings.h"

namespace labcheck::calc {

// Empty when the weights are not gathered (DDP, ZeRO-1/2 without offload) or the architecture is
// unknown (then training_memory.cpp leaves the peak open).
std::vector<MemoryComponent> ShardedResidency(const ModelInput& model, const TrainingSettings& settings,
                                              const CalcConstants& constants);

}  // namespace labcheck::calc

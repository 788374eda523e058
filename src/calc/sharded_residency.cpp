#include "calc/sharded_residency.h"

#include <fmt/format.h>

#include <algorithm>

#include "calc/byte_units.h"
#include "calc/param_count.h"

namespace labcheck::calc {
namespace {

// The parameter blocks the engine gathers, in parameters.
struct Units {
  double layer = 0;        // one decoder layer (attention or Mamba mixer, MLP or experts, router)
  double layers = 0;       // how many
  double embedding = 0;
  double head = 0;         // the matrix lm_head multiplies by (the embedding when tied)
  double root = 0;         // FSDP root unit: embeddings and lm_head unless they are their own units
  double layer_bytes = kBf16;  // per parameter as gathered (QLoRA: NF4 storage)
  bool full = false;           // weight gradients exist (full fine-tuning)
};

Units UnitsOf(const ModelInput& model, const ParamCounts& counts, const TrainingSettings& s, const CalcConstants& k) {
  Units u;
  u.layers = model.arch->layers;
  // Under --expert-parallel a layer's unit gathers only this GPU's routed experts: torchtitan
  // (torchtitan/distributed/fsdp.py, apply_fsdp_to_decoder) shards them over the efsdp mesh of the
  // EP rank's GPUs, the rest of the block over the whole FSDP mesh.
  const double routed = static_cast<double>(counts.routed_experts);
  const double local_routed = routed / std::max(1, s.expert_parallel);
  u.layer = (static_cast<double>(counts.attention + counts.mamba + counts.mlp + counts.router) - routed + local_routed) / u.layers;
  u.embedding = static_cast<double>(counts.embedding);
  u.head = counts.lm_head > 0 ? static_cast<double>(counts.lm_head) : u.embedding;
  u.root = s.shard_embeddings ? 0 : static_cast<double>(counts.embedding + counts.lm_head);
  // FSDP all-gathers only the packed NF4 data; the quantisation state is already on every GPU.
  u.layer_bytes = s.method == Method::Qlora ? (s.ReplicatesNf4QuantState() ? k.nf4_data_bits : k.nf4_bits) / 8 : kBf16;
  u.full = s.method == Method::Full;
  return u;
}

MemoryComponent Make(std::string id, Text label, double bytes, Text note, MemoryPhase phase) {
  return {std::move(id), std::move(label), bytes, std::move(note), phase};
}

std::string Prefetched(int prefetch, const char* one, const char* many) {
  return prefetch == 1 ? one : fmt::format("{} {}", prefetch, many);
}

std::vector<MemoryComponent> Fsdp(const Units& u, const TrainingSettings& s) {
  std::vector<MemoryComponent> out;
  const double layer = u.layer * u.layer_bytes;
  const double layer_grad = u.full ? u.layer * kBf16 : 0;
  const double head = u.head * kBf16;
  const double head_grad = u.full ? head : 0;
  // With CPU offload the reduce-scattered shard waits on the GPU for its device-to-host copy.
  const double grad_shard = u.full && s.offload.params ? layer_grad / std::max(1, s.WeightShards()) : 0;
  if (u.root > 0) {
    out.push_back(Make("fsdp_root", T("FSDP: корневой блок целиком", "FSDP: root unit unsharded"), u.root * kBf16 + head_grad,
                       T(fmt::format("эмбеддинги и lm_head ({}) в корневом блоке: FSDP не решардит корень после forward, они собраны до конца backward{}",
                                     FormatParams(u.root), u.full ? ", и градиент lm_head ждёт reduce-scatter корня в конце" : ""),
                         fmt::format("embeddings and lm_head ({}) in the root unit: FSDP does not reshard the root after forward, so they stay gathered to the end of backward{}",
                                     FormatParams(u.root), u.full ? ", and lm_head's gradient waits for the root's reduce-scatter at the end" : "")),
                       MemoryPhase::ForwardBackward));
  }
  if (!s.reshard_after_forward) {
    out.push_back(Make("fsdp_unsharded_layers", T("FSDP: слои не решардятся после forward", "FSDP: layers kept unsharded after forward"),
                       u.layers * layer,
                       T(fmt::format("reshard_after_forward=False (SHARD_GRAD_OP): все {:.0f} слоёв собраны между своим forward и backward", u.layers),
                         fmt::format("reshard_after_forward=False (SHARD_GRAD_OP): all {:.0f} layers stay gathered between their forward and backward", u.layers)),
                       MemoryPhase::ForwardBackward));
  }
  const double ahead = s.reshard_after_forward ? s.prefetch * layer : 0;
  const double own_head = u.root > 0 ? 0 : head + head_grad;
  out.push_back(Make("fsdp_loss_stage", T("FSDP: собранное на шаге loss", "FSDP: gathered during the loss backward"), own_head + ahead,
                     T(fmt::format("{}{}", u.root > 0 ? "" : (u.full ? "lm_head целиком и его градиент до reduce-scatter; " : "lm_head целиком; "),
                                   s.reshard_after_forward ? fmt::format("{} слой(я) декодера собраны заранее", s.prefetch) : "слои уже собраны"),
                       fmt::format("{}{} ahead", u.root > 0 ? "" : (u.full ? "lm_head unsharded and its gradient before the reduce-scatter; " : "lm_head unsharded; "),
                                   s.reshard_after_forward ? Prefetched(s.prefetch, "one decoder layer all-gathered", "decoder layers all-gathered") : "no layer gathered")),
                     MemoryPhase::LossBackward));
  const double current = s.reshard_after_forward ? layer : 0;
  // FSDP2 keeps a unit's reduce-scatter input (its whole gradient) until the next unit's
  // post-backward waits on it (_fsdp_param_group.py post_backward, comm_ctx.reduce_scatter_state):
  // during a layer's backward the previous unit's gradient is still there, lm_head's for the first
  // layer when it is its own unit.
  const double previous_grad = u.full ? std::max(layer_grad, u.root > 0 ? 0.0 : head_grad) : 0;
  out.push_back(Make("fsdp_layer_stage", T("FSDP: собранное в backward слоя", "FSDP: gathered during a layer's backward"),
                     current + ahead + layer_grad + previous_grad + grad_shard,
                     T(fmt::format("{}{}{}", s.reshard_after_forward ? fmt::format("текущий слой и {} следующий(их) целиком", s.prefetch) : "слои уже собраны",
                                   u.full ? "; градиент слоя до reduce-scatter и вход reduce-scatter предыдущего блока" : "", grad_shard > 0 ? "; его шард ждёт копии в RAM" : ""),
                       fmt::format("{}{}{}", s.reshard_after_forward ? fmt::format("the current layer and {} unsharded", Prefetched(s.prefetch, "the next", "layers ahead")) : "layers already gathered",
                                   u.full ? "; the layer's gradient before the reduce-scatter and the previous unit's reduce-scatter input" : "", grad_shard > 0 ? "; its shard waiting for the copy to CPU RAM" : "")),
                     MemoryPhase::LayerBackward));
  return out;
}

// FSDP with parameter offload copies a unit's shard to the GPU before its all-gather on a stream of
// its own: FSDP1 runs `pre_unshard` (FlatParamHandle.flat_param_to(device, non_blocking=True)) on
// the "pre_unshard" stream, "allocations and writes for CPU offloading (H2D copy)"
// (torch/distributed/fsdp/_runtime_utils.py, _init_streams and _unshard), and drops the copy once
// the all-gather has its output (_use_unsharded_flat_param). PyTorch's caching allocator hands a
// freed block only to a later request from the stream that allocated it
// (c10/cuda/CUDACachingAllocator.cpp, get_free_block: "if ((*it)->stream != p.stream()) return
// false"), and nothing releases it during training, so that stream's pool keeps the largest shard
// copied (the root unit's, which is copied first) reserved while the layers compute: in
// max_memory_reserved and in what the GPU shows in use, not in max_memory_allocated. FSDP2 makes
// the copy inside its all-gather, on a stream that also holds the all-gather output:
// Fsdp2StreamPools below.
std::vector<MemoryComponent> OffloadCopyCache(const Units& u, const TrainingSettings& s) {
  if (!s.offload.params) return {};
  double largest = u.layer * u.layer_bytes;
  if (u.root > 0) largest = std::max(largest, u.root * kBf16);
  if (u.root == 0) largest = std::max({largest, u.embedding * kBf16, u.head * kBf16});
  const int shards = std::max(1, s.WeightShards());
  return {Make("offload_copy_cache", T("Кэш копий шардов из RAM", "Cache of the shard copies from CPU RAM"), largest / shards,
               T(fmt::format("шарды идут из RAM в своём потоке CUDA; блок самого большого аллокатор держит для этого потока (блок / {} GPU)", shards),
                 fmt::format("shards come from CPU RAM on a CUDA stream of their own; the allocator keeps the largest one's block for that stream (a unit / {} GPUs)", shards)),
               MemoryPhase::OutsideAllocator)};
}

// FSDP2 (fully_shard) gathers and reduces on streams of its own, offloaded or not
// (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py and _fsdp_param_group.py, read at
// pytorch/pytorch 010ae4a8; older copies of the file allocate the all-gather output in the same
// place, and an older foreach_reduce also its input on the reduce-scatter stream, not counted):
//   - foreach_all_gather runs under all_gather_copy_in_stream, with or without offload: the unit's
//     all_gather_output (the whole unit) is allocated there, and the shards are copied into its
//     slice; a separate copy of each shard is made there first only when it must change device or
//     dtype: CPUOffloadPolicy (FSDPParam.all_gather_inputs, `sharded_param_data.to(self.device,
//     non_blocking=True)`) or a param_dtype cast under mixed precision (_get_param_all_gather_inputs,
//     --precision mixed); the copy-out into the
//     unsharded parameters runs on the compute stream, and the output is freed back to the
//     copy-in stream's pool. In forward the output is kept in comm_ctx.all_gather_state until the
//     next unit's wait_for_unshard ("Defer free to allow for overlap of this copy-out with next
//     all-gather collective", _fsdp_param_group.py), so that pool holds two units' outputs and the
//     second one's shard copies at once; the first unit is the root (embeddings and lm_head);
//   - foreach_reduce allocates the reduce-scatter output on reduce_scatter_stream and, offloaded,
//     copies it to CPU RAM and drops it there: that pool peaks at the largest unit's gradient shard.
//     Without offload the output becomes the sharded parameter's .grad and lives until the
//     optimizer step, already counted as the gradients: nothing apart.
// PyTorch's caching allocator gives a freed block only to the stream that allocated it
// (c10/cuda/CUDACachingAllocator.cpp, get_free_block), so each pool stays reserved at its own peak.
// Counted: each pool's peak of live tensors (a lower bound: its segments are not merged, so what it
// reserves can be more) less what the allocated peak already holds in it (the prefetched layers'
// all-gather outputs, the gradient shard waiting for its copy to CPU RAM).
double Fsdp2CopyInPoolBytes(const Units& u, const TrainingSettings& s, double shards) {
  const double layer = u.layer * u.layer_bytes;
  const double first = (u.root > 0 ? u.root : u.embedding) * kBf16;
  // Shard copies of their own only when they change device (offload) or dtype (mixed precision).
  const double copies = s.offload.params || s.precision == Precision::Mixed ? 1.0 / shards : 0;
  double pool = first + first * copies;                            // the first unit's copies and output
  if (u.layers >= 1) pool = std::max(pool, first + layer + layer * copies);  // layer 0 beside the root's output
  if (u.layers >= 2) pool = std::max(pool, 2 * layer + layer * copies);      // two layers in forward
  const double own_head = u.root > 0 ? 0 : u.head * kBf16;
  if (own_head > 0) pool = std::max(pool, layer + own_head + own_head * copies);  // lm_head's unit last
  const double ahead = s.reshard_after_forward ? s.prefetch * layer : 0;
  return std::max(pool, ahead + layer * copies);                   // backward prefetch
}

std::vector<MemoryComponent> Fsdp2StreamPools(const Units& u, const TrainingSettings& s) {
  const double shards = std::max(1, s.WeightShards());
  const double layer = u.layer * u.layer_bytes;
  const double ahead = s.reshard_after_forward ? s.prefetch * layer : 0;
  const double copy_in = Fsdp2CopyInPoolBytes(u, s, shards) - ahead;
  const bool offloaded = s.offload.params;
  const double largest_grad = u.full && offloaded ? std::max({u.layer, u.root, u.root > 0 ? 0.0 : std::max(u.embedding, u.head)}) * kBf16 : 0;
  const double grad_shard = u.full && offloaded ? u.layer * kBf16 / shards : 0;  // in the allocated peak (Fsdp above)
  const double reduce_scatter = largest_grad / shards - grad_shard;
  return {Make("fsdp2_stream_pools", T("FSDP2: пулы потоков all-gather и reduce-scatter", "FSDP2: pools of the all-gather and reduce-scatter streams"),
               copy_in + reduce_scatter,
               T(fmt::format("аллокатор держит блоки каждого потока для него одного: поток copy-in all-gather {:.2f} GiB, поток reduce-scatter {:.2f} GiB сверх пика",
                             ToGiB(copy_in), ToGiB(reduce_scatter)),
                 fmt::format("the allocator keeps each stream's blocks for that stream alone: all-gather copy-in stream {:.2f} GiB, reduce-scatter stream {:.2f} GiB beyond the peak",
                             ToGiB(copy_in), ToGiB(reduce_scatter))),
               MemoryPhase::OutsideAllocator)};
}

std::vector<MemoryComponent> Zero3(const Units& u, const CalcConstants& k) {
  std::vector<MemoryComponent> out;
  const double bucket = u.full ? k.zero3_reduce_bucket_elements * kBf16 : 0;
  // At the turn from forward to backward the modules about to be reused (lm_head, the last layers)
  // stay gathered up to the live budget; a single module larger than the budget is gathered anyway.
  const double live_turn = std::max(u.head, std::min(k.zero3_max_live_params, u.head + u.layers * u.layer));
  const double head_grad = u.full ? u.head * kBf16 : 0;
  out.push_back(Make("zero3_loss_stage", T("ZeRO-3: собранное на шаге loss", "ZeRO-3: gathered during the loss backward"),
                     live_turn * kBf16 + head_grad + bucket,
                     T(fmt::format("живые параметры на повороте к backward: {} (stage3_max_live_parameters {}){}", FormatParams(live_turn),
                                   FormatParams(k.zero3_max_live_params), u.full ? "; градиент lm_head и корзина reduce_bucket_size" : ""),
                       fmt::format("parameters live at the turn to backward: {} (stage3_max_live_parameters {}){}", FormatParams(live_turn),
                                   FormatParams(k.zero3_max_live_params), u.full ? "; lm_head's gradient and the reduce_bucket_size bucket" : "")),
                     MemoryPhase::LossBackward));
  const double live_layer = std::max(u.layer, std::min(k.zero3_max_live_params, u.layer + k.zero3_prefetch_bucket_params));
  out.push_back(Make("zero3_layer_stage", T("ZeRO-3: собранное в backward слоя", "ZeRO-3: gathered during a layer's backward"),
                     live_layer * u.layer_bytes + (u.full ? u.layer * kBf16 : 0) + bucket,
                     T(fmt::format("слой целиком и {} наперёд (stage3_prefetch_bucket_size){}", FormatParams(k.zero3_prefetch_bucket_params),
                                   u.full ? "; градиенты слоя и корзина reduce_bucket_size" : ""),
                       fmt::format("the layer unsharded and {} fetched ahead (stage3_prefetch_bucket_size){}", FormatParams(k.zero3_prefetch_bucket_params),
                                   u.full ? "; the layer's gradients and the reduce_bucket_size bucket" : "")),
                     MemoryPhase::LayerBackward));
  return out;
}

}  // namespace

std::vector<MemoryComponent> ShardedResidency(const ModelInput& model, const TrainingSettings& s, const CalcConstants& k) {
  const std::optional<ParamCounts> counts = model.counts();
  if (!s.GathersLayers() || !counts || !model.arch || model.arch->layers <= 0) return {};
  const Units units = UnitsOf(model, *counts, s, k);
  if (s.sharding == Sharding::Zero3) return Zero3(units, k);
  std::vector<MemoryComponent> out = Fsdp(units, s);
  const bool fsdp2 = s.fsdp_version == 2;
  for (MemoryComponent& c : fsdp2 ? Fsdp2StreamPools(units, s) : OffloadCopyCache(units, s)) out.push_back(std::move(c));
  return out;
}

}  // namespace labcheck::calc

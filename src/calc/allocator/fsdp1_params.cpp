// PyTorch FSDP1 (FullyShardedDataParallel, FULL_SHARD, use_orig_params=False, limit_all_gathers,
// BACKWARD_PRE), as fsdp_qlora's train.py sets it up (and accelerate's FSDP plugin the same way):
//   - load, rank 0 with low_memory: each NF4 weight quantised on the GPU and its packed codes moved
//     to the CPU, the QuantState left on the GPU (train.py load_and_quantize); empty_cache();
//   - wrap, unit by unit bottom-up (each LoRA matrix its own unit, then the decoder layer, the root
//     last): the unit's parameters moved to the GPU (_move_module_to_device), broadcast in buckets
//     of up to 250 MiB (_sync_module_params_and_buffers), flattened into one tensor, its shard
//     cloned and the flat tensor freed (FlatParamHandle.shard); with CPU offload the shard moves to
//     the CPU. No empty_cache after the wrap: the freed blocks stay in the compute stream's pool;
//   - lazy init at the first forward: each unit's padded unsharded buffer allocated and freed
//     (init_flat_param_attributes);
//   - unshard on the unshard stream (with offload the shard's H2D copy first, on the pre-unshard
//     stream), reshard freeing it with record_stream(current stream) and queueing a free event; the
//     rate limiter synchronises on the oldest of two queued events before the next all-gather;
//   - a trained unit's flat gradient reduce-scattered on the post-backward stream into a sharded
//     gradient that waits there for the optimizer (with offload: copied to the CPU and dropped).
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "calc/allocator/bnb_quantize.h"
#include "calc/allocator/optimizer_trace.h"
#include "calc/allocator/param_hooks.h"

namespace labcheck::calc::allocator {
namespace {

constexpr double kBroadcastBucket = 250.0 * 1024 * 1024;  // _init_utils.py PARAM_BROADCAST_BUCKET_SIZE
constexpr size_t kInflightAllGathers = 2;                // _limiter_utils _FreeEventQueue

struct Fsdp1Unit {
  std::vector<double> params;  // bytes of each parameter moved to the GPU at the wrap
  double bytes = 0;            // the flat parameter, unsharded
  double shard = 0;
  double element_bytes = 2;
  bool trainable = false;
  bool adapter = false;        // a LoRA matrix wrapped on its own (train.py's lambda policy)
  Tensor local_shard = kNone;  // on the GPU unless offloaded
  Tensor full = kNone;         // gathered
  Tensor grad_shard = kNone;
  std::vector<Tensor> param_grads;  // full fine-tuning: each parameter's gradient before the flat one
  uint64_t gathered = 0;            // unshard-stream event of its all-gather
};

class Fsdp1 : public ParamHooks {
 public:
  Fsdp1(const TraceModel& m, const TrainingSettings& s)
      : m_(m), s_(s), world_(s.gpus), offload_(s.offload.params), optimizer_(s.optimizer, m.state_bytes, kCompute) {
    Units();
  }

  void Load(TraceBuilder& b) override {
    if (s_.method == Method::Qlora) {
      for (int64_t i = 0; i < m_.layers; ++i) {
        for (const TraceLinear& l : m_.layer.linears) Quantize(b, l);
      }
      b.EmptyCache("fsdp_qlora.empty_cache");  // train.py: "cleanup any extra memory usage from parallel loading"
    }
    b.Stage("FSDP wrap");
    for (size_t u = 1; u < units_.size(); ++u) Wrap(b, units_[u]);
    Wrap(b, units_[0]);
  }

  void Embedding(TraceBuilder& b, bool begin, bool backward) override {
    if (!begin || backward) return;
    if (!lazy_init_done_) {
      for (size_t u : forward_order_) {
        Tensor padded = b.Alloc(units_[u].bytes, kCompute, "fsdp1.lazy_init.full_param_padded");
        b.Free(padded);
      }
      lazy_init_done_ = true;
    }
    Unshard(b, units_[0]);
  }

  void LayerForward(TraceBuilder& b, int64_t layer, bool begin, bool recompute) override {
    if (recompute) return;  // the checkpoint recomputes the wrapped layer inside the unit, no FSDP hooks
    Fsdp1Unit& u = units_[LayerUnit(layer)];
    if (begin) Unshard(b, u);
    else Reshard(b, u);
  }

  void Adapter(TraceBuilder& b, int64_t layer, size_t linear, bool begin, AdapterPass pass) override {
    Fsdp1Unit& a = units_[adapter_units_[static_cast<size_t>(layer)][linear]];
    Fsdp1Unit& bu = units_[adapter_units_[static_cast<size_t>(layer)][linear] + 1];
    if (begin) {
      Unshard(b, pass == AdapterPass::Backward ? bu : a);
      Unshard(b, pass == AdapterPass::Backward ? a : bu);
    } else {
      Reshard(b, pass == AdapterPass::Backward ? bu : a);
      Reshard(b, pass == AdapterPass::Backward ? a : bu);
    }
  }

  void LayerBackward(TraceBuilder& b, int64_t layer, bool begin) override {
    Fsdp1Unit& u = units_[LayerUnit(layer)];
    if (begin) {
      Unshard(b, u);
      if (const auto next = BackwardPrefetch(LayerUnit(layer))) Unshard(b, units_[*next]);
      return;
    }
    if (u.trainable) ReduceGrad(b, u);
    Reshard(b, u);
  }

  void WeightGrad(TraceBuilder& b, int64_t layer, size_t linear) override {
    const TraceLinear& l = m_.layer.linears[linear];
    units_[LayerUnit(layer)].param_grads.push_back(
        b.Alloc(static_cast<double>(l.params()) * m_.grad_bytes, kCompute, "torch.autograd.mm_backward"));
  }

  void AdapterGrad(TraceBuilder& b, int64_t layer, size_t linear) override {
    const size_t a = adapter_units_[static_cast<size_t>(layer)][linear];
    for (size_t u : {a + 1, a}) {
      units_[u].param_grads.push_back(b.Alloc(units_[u].bytes, kCompute, "torch.autograd.mm_backward"));
      ReduceGrad(b, units_[u]);
    }
  }

  void HeadGrad(TraceBuilder& b) override {
    units_[0].param_grads.push_back(b.Alloc(static_cast<double>(m_.vocab * m_.layer.hidden) * m_.grad_bytes, kCompute, "torch.autograd.mm_backward"));
  }
  void EmbeddingGrad(TraceBuilder& b) override {
    if (s_.method != Method::Full) return;
    units_[0].param_grads.push_back(
        b.Alloc(static_cast<double>(m_.embedding_params) * m_.grad_bytes, kCompute, "torch.autograd.embedding_backward"));
  }

  void BackwardEnd(TraceBuilder& b) override {
    if (units_[0].trainable) ReduceGrad(b, units_[0]);
    // _post_backward_final_callback: the compute stream waits for the reduce-scatters; with CPU
    // offload the CPU then waits for the device (the gradients' copies to the host); then
    // _catch_all_reshard reshards the root.
    joined_.emplace_back(b.Marker(kCompute, "fsdp1.wait_for_post_backward"), b.Marker(kPostBackward, "fsdp1.wait_for_post_backward"));
    if (offload_) {
      b.SynchronizeAll("fsdp1.post_backward_offload_synchronize");
      joined_.clear();
    }
    Reshard(b, units_[0]);
  }

  void OptimizerStep(TraceBuilder& b) override {
    if (offload_) return;  // the optimizer steps the CPU shards
    std::vector<double> elements;
    for (const Fsdp1Unit& u : units_) {
      if (u.trainable) elements.push_back(u.shard / u.element_bytes);
    }
    optimizer_.Step(b, elements);
  }
  void ZeroGrad(TraceBuilder& b, std::string_view source) override {
    for (Fsdp1Unit& u : units_) b.Free(u.grad_shard, source);
  }

 private:
  size_t LayerUnit(int64_t layer) const { return layer_units_[static_cast<size_t>(layer)]; }

  // BACKWARD_PRE: _get_handle_to_prefetch takes the unit before this one in post-forward order
  // (ExecOrderData.get_handle_to_backward_prefetch), and only if it registered pre-backward hooks
  // (_needs_pre_backward_unshard): units whose forward ran under no_grad inside a checkpoint (the
  // LoRA units of a checkpointed layer) did not, so a checkpointed LoRA layer prefetches nothing.
  std::optional<size_t> BackwardPrefetch(size_t unit) const {
    for (size_t i = 1; i < post_forward_order_.size(); ++i) {
      if (post_forward_order_[i] != unit) continue;
      const size_t target = post_forward_order_[i - 1];
      if (units_[target].adapter && s_.checkpointing) return std::nullopt;
      return target;
    }
    return std::nullopt;
  }

  Fsdp1Unit MakeUnit(std::vector<double> params, double element_bytes, bool trainable) const {
    Fsdp1Unit u;
    u.params = std::move(params);
    for (double p : u.params) u.bytes += p;
    u.shard = u.bytes / world_;
    u.bytes = u.shard * world_;
    u.element_bytes = element_bytes;
    u.trainable = trainable;
    return u;
  }

  void Units() {
    const bool full = s_.method == Method::Full;
    const double w = m_.weight_bytes;
    std::vector<double> root = {static_cast<double>(m_.embedding_params) * w, static_cast<double>(m_.final_norm_params) * w};
    if (m_.head_params > 0) root.push_back(static_cast<double>(m_.head_params) * w);
    units_.push_back(MakeUnit(root, w, full));
    forward_order_.push_back(0);
    adapter_units_.assign(static_cast<size_t>(m_.layers), std::vector<size_t>(m_.layer.linears.size(), 0));
    for (int64_t i = 0; i < m_.layers; ++i) {
      std::vector<double> params;
      std::vector<size_t> adapters;
      for (size_t j = 0; j < m_.layer.linears.size(); ++j) {
        const TraceLinear& l = m_.layer.linears[j];
        params.push_back(static_cast<double>(l.params()) * (l.quantized ? m_.nf4_data_bytes : w));
        if (!l.adapted) continue;
        adapter_units_[static_cast<size_t>(i)][j] = units_.size();
        adapters.push_back(units_.size());
        for (int64_t side : {l.in, l.out}) {
          units_.push_back(MakeUnit({static_cast<double>(m_.lora_rank * side) * m_.adapter_bytes}, m_.adapter_bytes, true));
          units_.back().adapter = true;
        }
      }
      params.push_back(static_cast<double>(m_.layer.norm_params + m_.layer.bias_params) * w);
      layer_units_.push_back(units_.size());
      units_.push_back(MakeUnit(params, w, full));
      forward_order_.push_back(layer_units_.back());
      for (size_t a : adapters) forward_order_.push_back(a), forward_order_.push_back(a + 1);
      for (size_t a : adapters) post_forward_order_.push_back(a), post_forward_order_.push_back(a + 1);
      post_forward_order_.push_back(layer_units_.back());
    }
  }

  // bitsandbytes quantize_4bit on the GPU, then `value.data.to("cpu")`: the QuantState stays.
  void Quantize(TraceBuilder& b, const TraceLinear& l) {
    if (!l.quantized) return;
    const double n = static_cast<double>(l.params());
    Tensor weight = b.Alloc(n * 2, kCompute, "fsdp_qlora.load_and_quantize");
    QuantizedWeight q = Quantize4bit(b, n, m_.nf4_data_bytes);
    for (Tensor t : q.state) quant_state_.push_back(t);
    b.Free(weight);
    b.Free(q.packed, "fsdp_qlora.load_and_quantize");  // `value.data.to("cpu")`
  }

  void Broadcast(TraceBuilder& b, const std::vector<double>& params) {
    double bucket = 0;
    int tensors = 0;
    auto flush = [&] {
      if (tensors > 1) {
        Tensor flat = b.Alloc(bucket, kCompute, "fsdp1.init.sync_module_states");
        b.Free(flat);
      }
      bucket = 0, tensors = 0;
    };
    for (double p : params) {
      if (tensors > 0 && bucket + p > kBroadcastBucket) flush();
      bucket += p, ++tensors;
    }
    flush();
  }

  void Wrap(TraceBuilder& b, Fsdp1Unit& u) {
    std::vector<Tensor> moved;
    for (double p : u.params) moved.push_back(b.Alloc(p, kCompute, "fsdp1.init.move_to_device"));
    Broadcast(b, u.params);
    Tensor flat = b.Alloc(u.bytes, kCompute, "fsdp1.init.flatten");
    u.local_shard = b.Alloc(u.shard, kCompute, "fsdp1.init.shard");
    b.Free(flat);
    for (Tensor& t : moved) b.Free(t);
    if (offload_) b.Free(u.local_shard);  // flat_param_to(cpu)
  }

  void RateLimit(TraceBuilder& b) {
    if (free_events_.size() < kInflightAllGathers) return;
    const auto [compute, gathered] = free_events_.front();
    free_events_.pop_front();
    b.Synchronize(kCompute, compute, "fsdp1.rate_limiter");
    b.Synchronize(kUnshard, gathered, "fsdp1.rate_limiter");
    while (!joined_.empty() && joined_.front().first <= compute) {
      b.Synchronize(kPostBackward, joined_.front().second, "fsdp1.rate_limiter");
      joined_.pop_front();
    }
  }

  void Unshard(TraceBuilder& b, Fsdp1Unit& u) {
    if (u.full != kNone) return;
    Tensor copy = offload_ ? b.Alloc(u.shard, kPreUnshard, "fsdp1.pre_unshard") : kNone;
    RateLimit(b);
    u.full = b.Alloc(u.bytes, kUnshard, "fsdp1.unshard");
    if (copy != kNone) {
      b.RecordStream(copy, kUnshard, "fsdp1.unshard.all_gather");  // read by the all-gather; flat_param.data then points at the gathered tensor
      b.Free(copy);
    }
    u.gathered = b.Marker(kUnshard, "fsdp1.unshard.all_gather");
  }

  void Reshard(TraceBuilder& b, Fsdp1Unit& u) {
    if (u.full == kNone) return;
    b.RecordStream(u.full, kCompute, "fsdp1.reshard");
    b.Free(u.full, "fsdp1.reshard");
    free_events_.emplace_back(b.Marker(kCompute, "fsdp1.reshard"), u.gathered);
  }

  // The flat gradient (SplitBackward joins the views' gradients), reduce-scattered on the
  // post-backward stream into the sharded gradient.
  void ReduceGrad(TraceBuilder& b, Fsdp1Unit& u) {
    if (u.param_grads.empty()) return;
    Tensor flat = b.Alloc(u.bytes / u.element_bytes * m_.grad_bytes, kCompute, "fsdp1.flat_param_grad");
    for (Tensor& g : u.param_grads) b.Free(g);
    u.param_grads.clear();
    Tensor sharded = b.Alloc(u.shard / u.element_bytes * m_.grad_bytes, kPostBackward, "fsdp1.reduce_grad");
    b.RecordStream(flat, kPostBackward, "fsdp1.reduce_grad");
    b.Free(flat);
    if (offload_ || u.grad_shard != kNone) b.Free(sharded);  // copied to _cpu_grad / added to the kept shard
    else u.grad_shard = sharded;
    // Taken to be done once the compute stream has passed this point (the reduce-scatter runs beside
    // the next units' backward): the rate limiter's wait on a later free event then covers it.
    const uint64_t reduced = b.Marker(kPostBackward, "fsdp1.reduce_grad");
    joined_.emplace_back(b.Marker(kCompute, "fsdp1.reduce_grad"), reduced);
  }

  const TraceModel& m_;
  const TrainingSettings& s_;
  const double world_;
  const bool offload_;
  OptimizerTrace optimizer_;
  std::vector<Fsdp1Unit> units_;  // 0: the root; then per layer its adapters' units and the layer's
  std::vector<size_t> layer_units_;
  std::vector<std::vector<size_t>> adapter_units_;  // [layer][linear]: lora_A's unit (lora_B's is next)
  std::vector<size_t> forward_order_;       // pre-forward order: root, each layer, then its adapters' units
  std::vector<size_t> post_forward_order_;  // post-forward order: each layer's adapters' units, then the layer
  std::vector<Tensor> quant_state_;
  std::deque<std::pair<uint64_t, uint64_t>> free_events_;  // (compute event, its unit's all-gather)
  // (compute event, a post-backward event taken to be done when the compute stream reaches it)
  std::deque<std::pair<uint64_t, uint64_t>> joined_;
  bool lazy_init_done_ = false;
};

}  // namespace

std::unique_ptr<ParamHooks> Fsdp1Params(const TraceModel& model, const TrainingSettings& settings) {
  return std::make_unique<Fsdp1>(model, settings);
}

}  // namespace labcheck::calc::allocator

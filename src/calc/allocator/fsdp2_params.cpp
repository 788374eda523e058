// PyTorch FSDP2 (fully_shard) as torchtune's distributed recipes use it: every decoder layer a unit
// (LoRA adapters inside it), the embeddings and lm_head in the root unit or, with
// custom_sharded_layers, units of their own:
//   - load: each full tensor moved to the GPU and scattered into its shard (torchtune's
//     load_from_full_model_state_dict with distribute_tensor), the shard moved to the CPU under
//     CPU offload;
//   - unshard: foreach_all_gather allocates the unit's all-gather output on the all-gather copy-in
//     stream (with offload after copying each shard to the GPU there); the copy-out allocates each
//     parameter's unsharded tensor on the compute stream, and the output is freed when the next
//     unit waits for its own (comm_ctx.all_gather_state); reshard frees the unsharded tensors;
//   - backward prefetches the next unit; a trained unit's gradients are copied into one
//     reduce-scatter input on the compute stream, kept until the next unit's reduce-scatter
//     (comm_ctx.reduce_scatter_state), and reduce-scattered into sharded gradients on the
//     reduce-scatter stream (with offload copied to the CPU and freed);
//   - the root unit stays gathered from its forward to the end of backward.
#include <vector>

#include "calc/allocator/optimizer_trace.h"
#include "calc/allocator/param_hooks.h"

namespace labcheck::calc::allocator {
namespace {


struct Fsdp2Unit {
  std::vector<double> params;      // bytes of each parameter, unsharded
  std::vector<double> trainable;   // bytes of each trained parameter, unsharded
  double bytes = 0;
  std::vector<Tensor> shards;      // on the GPU unless offloaded
  std::vector<Tensor> unsharded;   // gathered parameters (copy-out)
  std::vector<Tensor> grads;       // unsharded gradients from autograd
  std::vector<Tensor> grad_shards;
};

class Fsdp2 : public ParamHooks {
 public:
  Fsdp2(const TraceModel& m, const TrainingSettings& s)
      : m_(m), s_(s), world_(s.gpus), offload_(s.offload.params), optimizer_(s.optimizer, m.state_bytes, kCompute) {
    Units();
  }

  void Load(TraceBuilder& b) override {
    for (Fsdp2Unit& u : units_) {
      for (double p : u.params) {
        Tensor full = b.Alloc(p, kCompute, "torchtune.load_from_full_model_state_dict");
        Tensor shard = b.Alloc(p / world_, kCompute, "torch.distributed.tensor.distribute_tensor");
        b.Free(full);
        if (offload_) b.Free(shard);
        else u.shards.push_back(shard);
      }
    }
  }

  void Embedding(TraceBuilder& b, bool begin, bool backward) override {
    const bool own = s_.shard_embeddings;
    if (!backward && begin) {
      Unshard(b, root_);
      if (own) Unshard(b, embedding_unit_);
    } else if (!backward && own) {
      Reshard(b, embedding_unit_);
    } else if (backward && begin && own) {
      Unshard(b, embedding_unit_);
    } else if (backward && own) {
      Reduce(b, embedding_unit_), Reshard(b, embedding_unit_);
    }
  }
  void Head(TraceBuilder& b, bool begin, bool backward) override {
    if (head_unit_ == root_) return;
    if (begin) Unshard(b, head_unit_);
    else if (!backward) Reshard(b, head_unit_);
    else Reduce(b, head_unit_), Reshard(b, head_unit_);
  }
  void LayerForward(TraceBuilder& b, int64_t layer, bool begin, bool recompute) override {
    if (recompute) return;
    if (begin) Unshard(b, LayerUnit(layer));
    else Reshard(b, LayerUnit(layer));
  }
  void LayerBackward(TraceBuilder& b, int64_t layer, bool begin) override {
    if (begin) {
      Unshard(b, LayerUnit(layer));
      if (layer > 0) Unshard(b, LayerUnit(layer - 1));  // backward prefetch of the next unit
      return;
    }
    Reduce(b, LayerUnit(layer));
    Reshard(b, LayerUnit(layer));
  }

  void WeightGrad(TraceBuilder& b, int64_t layer, size_t linear) override {
    units_[LayerUnit(layer)].grads.push_back(
        b.Alloc(static_cast<double>(m_.layer.linears[linear].params()) * m_.grad_bytes, kCompute, "torch.autograd.mm_backward"));
  }
  void AdapterGrad(TraceBuilder& b, int64_t layer, size_t linear) override {
    const TraceLinear& l = m_.layer.linears[linear];
    Fsdp2Unit& u = units_[LayerUnit(layer)];
    u.grads.push_back(b.Alloc(static_cast<double>(m_.lora_rank * l.out) * m_.grad_bytes, kCompute, "torch.autograd.mm_backward"));
    u.grads.push_back(b.Alloc(static_cast<double>(m_.lora_rank * l.in) * m_.grad_bytes, kCompute, "torch.autograd.mm_backward"));
  }
  void HeadGrad(TraceBuilder& b) override {
    units_[head_unit_].grads.push_back(b.Alloc(static_cast<double>(m_.vocab * m_.layer.hidden) * m_.grad_bytes, kCompute, "torch.autograd.mm_backward"));
  }
  void EmbeddingGrad(TraceBuilder& b) override {
    if (s_.method != Method::Full) return;
    units_[embedding_unit_].grads.push_back(
        b.Alloc(static_cast<double>(m_.embedding_params) * m_.grad_bytes, kCompute, "torch.autograd.embedding_backward"));
  }
  void BackwardEnd(TraceBuilder& b) override {
    Reduce(b, root_), Reshard(b, root_);
    b.Free(reduce_scatter_input_);
    b.Free(all_gather_output_);
  }

  void OptimizerStep(TraceBuilder& b) override {
    if (offload_) return;
    std::vector<double> elements;
    for (const Fsdp2Unit& u : units_) {
      for (double t : u.trainable) elements.push_back(t / world_ / m_.grad_bytes);
    }
    optimizer_.Step(b, elements);
  }
  void ZeroGrad(TraceBuilder& b, std::string_view source) override {
    for (Fsdp2Unit& u : units_) {
      for (Tensor& g : u.grad_shards) b.Free(g, source);
      u.grad_shards.clear();
    }
  }

 private:
  size_t LayerUnit(int64_t layer) const { return first_layer_unit_ + static_cast<size_t>(layer); }

  void Units() {
    const double w = m_.weight_bytes;
    const bool full = s_.method == Method::Full;
    const double embedding = static_cast<double>(m_.embedding_params) * w, head = static_cast<double>(m_.head_params) * w;
    Fsdp2Unit root;
    root.params.push_back(static_cast<double>(m_.final_norm_params) * w);
    if (s_.shard_embeddings) {
      units_.push_back({{embedding}, full ? std::vector<double>{embedding} : std::vector<double>{}});
      embedding_unit_ = 0;
    } else {
      root.params.push_back(embedding);
      if (full) root.trainable.push_back(embedding);
    }
    first_layer_unit_ = units_.size();
    for (int64_t i = 0; i < m_.layers; ++i) {
      Fsdp2Unit u;
      for (const TraceLinear& l : m_.layer.linears) {
        u.params.push_back(static_cast<double>(l.params()) * (l.quantized ? m_.nf4_data_bytes : w));
        if (l.trained) u.trainable.push_back(static_cast<double>(l.params()) * m_.grad_bytes);
        if (!l.adapted) continue;
        for (int64_t side : {l.in, l.out}) {
          u.params.push_back(static_cast<double>(m_.lora_rank * side) * m_.adapter_bytes);
          u.trainable.push_back(static_cast<double>(m_.lora_rank * side) * m_.grad_bytes);
        }
      }
      u.params.push_back(static_cast<double>(m_.layer.norm_params + m_.layer.bias_params) * w);
      units_.push_back(std::move(u));
    }
    if (head > 0 && s_.shard_embeddings) {
      units_.push_back({{head}, full ? std::vector<double>{head} : std::vector<double>{}});
      head_unit_ = units_.size() - 1;
    } else if (head > 0) {
      root.params.push_back(head);
      if (full) root.trainable.push_back(head);
    }
    units_.push_back(std::move(root));
    root_ = units_.size() - 1;
    if (!s_.shard_embeddings) embedding_unit_ = root_;
    if (!s_.shard_embeddings || head == 0) head_unit_ = root_;
    for (Fsdp2Unit& u : units_) {
      for (double p : u.params) u.bytes += p;
    }
  }

  void Unshard(TraceBuilder& b, size_t index) {
    Fsdp2Unit& u = units_[index];
    if (!u.unsharded.empty()) return;
    std::vector<Tensor> copies;
    if (offload_) {
      for (double p : u.params) copies.push_back(b.Alloc(p / world_, kAllGatherCopyIn, "fsdp2.all_gather_inputs"));
    }
    Tensor output = b.Alloc(u.bytes, kAllGatherCopyIn, "fsdp2.foreach_all_gather");
    for (Tensor& c : copies) b.Free(c);
    b.Free(all_gather_output_);  // the previous unit's output, freed when this one is waited for
    for (double p : u.params) u.unsharded.push_back(b.Alloc(p, kCompute, "fsdp2.foreach_all_gather_copy_out"));
    all_gather_output_ = output;
  }

  void Reshard(TraceBuilder& b, size_t index) {
    for (Tensor& t : units_[index].unsharded) b.Free(t);
    units_[index].unsharded.clear();
  }

  void Reduce(TraceBuilder& b, size_t index) {
    Fsdp2Unit& u = units_[index];
    if (u.grads.empty()) return;
    double total = 0;
    for (double t : u.trainable) total += t;
    Tensor input = b.Alloc(total, kCompute, "fsdp2.foreach_reduce");
    for (Tensor& g : u.grads) b.Free(g);
    u.grads.clear();
    Tensor output = b.Alloc(total / world_, kReduceScatter, "fsdp2.foreach_reduce");
    if (offload_) b.Free(output);  // copied to the CPU shard's gradient
    else u.grad_shards.push_back(output);
    b.Free(reduce_scatter_input_);  // the previous unit's input, kept until this reduce-scatter
    reduce_scatter_input_ = input;
  }

  const TraceModel& m_;
  const TrainingSettings& s_;
  const double world_;
  const bool offload_;
  OptimizerTrace optimizer_;
  std::vector<Fsdp2Unit> units_;
  size_t root_ = 0, first_layer_unit_ = 0, embedding_unit_ = 0, head_unit_ = 0;
  Tensor all_gather_output_ = kNone;
  Tensor reduce_scatter_input_ = kNone;
};

}  // namespace

std::unique_ptr<ParamHooks> Fsdp2Params(const TraceModel& model, const TrainingSettings& settings) {
  return std::make_unique<Fsdp2>(model, settings);
}

}  // namespace labcheck::calc::allocator

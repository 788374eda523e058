// One GPU holds everything: the weights loaded tensor by tensor (transformers' from_pretrained with
// a device map; bitsandbytes quantises each NF4 weight on the GPU as it arrives: the BF16 weight,
// the packed codes, an FP32 absmax, then its 8-bit double quantisation; PEFT then creates the
// adapters on the base layer's device), a gradient per trained tensor from its first backward
// node to zero_grad(set_to_none=True), the optimizer's states and step (optimizer_trace.h).
#include <vector>

#include "calc/allocator/bnb_quantize.h"
#include "calc/allocator/optimizer_trace.h"
#include "calc/allocator/param_hooks.h"

namespace labcheck::calc::allocator {
namespace {


class SingleGpu : public ParamHooks {
 public:
  SingleGpu(const TraceModel& m, const TrainingSettings& s)
      : m_(m), s_(s), optimizer_(s.optimizer, m.state_bytes, kCompute) { Index(); }

  void Load(TraceBuilder& b) override {
    Keep(b.Alloc(static_cast<double>(m_.embedding_params) * m_.weight_bytes, kCompute, "hf.from_pretrained.load"));
    for (int64_t i = 0; i < m_.layers; ++i) {
      for (const TraceLinear& l : m_.layer.linears) LoadLinear(b, l);
      Keep(b.Alloc(static_cast<double>(m_.layer.norm_params + m_.layer.bias_params) * m_.weight_bytes, kCompute, "hf.from_pretrained.load"));
    }
    Keep(b.Alloc(static_cast<double>(m_.final_norm_params) * m_.weight_bytes, kCompute, "hf.from_pretrained.load"));
    if (m_.head_params > 0) Keep(b.Alloc(static_cast<double>(m_.head_params) * m_.weight_bytes, kCompute, "hf.from_pretrained.load"));
    for (int64_t i = 0; i < m_.layers; ++i) {
      for (const TraceLinear& l : m_.layer.linears) {
        if (!l.adapted) continue;
        Keep(b.Alloc(static_cast<double>(m_.lora_rank * l.in) * m_.adapter_bytes, kCompute, "peft.lora.update_layer"));
        Keep(b.Alloc(static_cast<double>(m_.lora_rank * l.out) * m_.adapter_bytes, kCompute, "peft.lora.update_layer"));
      }
    }
  }

  void WeightGrad(TraceBuilder& b, int64_t layer, size_t linear) override {
    Grad(b, weight_index_[static_cast<size_t>(layer)][linear]);
  }
  void AdapterGrad(TraceBuilder& b, int64_t layer, size_t linear) override {
    const size_t a = adapter_index_[static_cast<size_t>(layer)][linear];
    Grad(b, a + 1);  // lora_B's node runs first
    Grad(b, a);
  }
  void HeadGrad(TraceBuilder& b) override {
    if (s_.method == Method::Full) Grad(b, head_index_);
  }
  void EmbeddingGrad(TraceBuilder& b) override {
    if (s_.method != Method::Full) return;
    if (m_.head_params > 0) return Grad(b, embedding_index_);
    Tensor partial = b.Alloc(static_cast<double>(m_.embedding_params) * m_.grad_bytes, kCompute, "torch.autograd.embedding_backward");
    b.Free(partial);  // tied: added into lm_head's gradient
  }
  void OptimizerStep(TraceBuilder& b) override {
    if (!s_.optimizer_in_backward) optimizer_.Step(b, elements_);
  }
  void ZeroGrad(TraceBuilder& b, std::string_view source) override {
    for (Tensor& g : grads_) b.Free(g, source);
  }

 private:
  void Keep(Tensor t) { weights_.push_back(t); }

  void LoadLinear(TraceBuilder& b, const TraceLinear& l) {
    const double n = static_cast<double>(l.params());
    if (!l.quantized) return Keep(b.Alloc(n * m_.weight_bytes, kCompute, "hf.from_pretrained.load"));
    Tensor weight = b.Alloc(n * 2, kCompute, "hf.from_pretrained.load");
    QuantizedWeight q = Quantize4bit(b, n, m_.nf4_data_bytes);
    Keep(q.packed);
    for (Tensor t : q.state) Keep(t);
    b.Free(weight);
  }

  // The trainable tensors in model.parameters() order, and where each hook finds its own.
  void Index() {
    const bool full = s_.method == Method::Full;
    auto add = [&](double elements) {
      elements_.push_back(elements);
      return elements_.size() - 1;
    };
    if (full) embedding_index_ = add(static_cast<double>(m_.embedding_params));
    weight_index_.assign(static_cast<size_t>(m_.layers), std::vector<size_t>(m_.layer.linears.size(), 0));
    adapter_index_ = weight_index_;
    for (int64_t i = 0; i < m_.layers; ++i) {
      for (size_t j = 0; j < m_.layer.linears.size(); ++j) {
        const TraceLinear& l = m_.layer.linears[j];
        if (full) weight_index_[static_cast<size_t>(i)][j] = add(static_cast<double>(l.params()));
        if (l.adapted) {
          adapter_index_[static_cast<size_t>(i)][j] = add(static_cast<double>(m_.lora_rank * l.in));
          add(static_cast<double>(m_.lora_rank * l.out));
        }
      }
    }
    if (full) head_index_ = m_.head_params > 0 ? add(static_cast<double>(m_.head_params)) : embedding_index_;
    grads_.assign(elements_.size(), kNone);
  }

  // A gradient appears at its first node in the step (AccumulateGrad steals it); with the optimizer
  // in backward its hook steps and drops it at once.
  void Grad(TraceBuilder& b, size_t index) {
    if (grads_[index] != kNone) return;
    grads_[index] = b.Alloc(elements_[index] * m_.grad_bytes, kCompute, "torch.autograd.accumulate_grad");
    if (!s_.optimizer_in_backward) return;
    optimizer_.StepOne(b, index, elements_[index]);
    b.Free(grads_[index]);
  }

  const TraceModel& m_;
  const TrainingSettings& s_;
  OptimizerTrace optimizer_;
  std::vector<Tensor> weights_;
  std::vector<double> elements_;
  std::vector<Tensor> grads_;
  std::vector<std::vector<size_t>> weight_index_, adapter_index_;
  size_t head_index_ = 0, embedding_index_ = 0;
};

}  // namespace

std::unique_ptr<ParamHooks> SingleGpuParams(const TraceModel& model, const TrainingSettings& settings) {
  return std::make_unique<SingleGpu>(model, settings);
}

}  // namespace labcheck::calc::allocator

#include "calc/allocator/trace_shapes.h"

#include <fmt/format.h>

#include "calc/byte_units.h"

namespace labcheck::calc::allocator {
namespace {

// Layers and settings the trace is written for; the reason otherwise, in English (vram prints it).
std::string NotModelled(const Architecture& a, const TrainingSettings& s) {
  if (a.moe.enabled()) return "MoE layers (routed experts)";
  if (a.mla.enabled()) return "multi-head latent attention";
  if (a.mamba.count() > 0 || !a.block_pattern.empty()) return "state-space (Mamba) layers";
  if (a.vision.present()) return "a vision tower";
  if (a.attn_output_gate) return "gated attention output";
  if (a.norms_per_layer != 2) return "four norms per layer";
  if (s.attention == Attention::Eager) return "eager attention";
  if (s.offload.activations) return "activation offload";
  if (s.offload.optimizer) return "optimizer offload (ZeRO-Offload)";
  if (s.precision == Precision::Mixed) return "FP32 master weights under autocast";
  if (s.expert_parallel > 1) return "expert parallelism";
  const bool sharded = s.gpus > 1;
  if (!sharded && s.offload.params) return "parameter offload on one GPU";
  if (sharded && s.sharding != Sharding::Fsdp) return fmt::format("{} over several GPUs", ShardingName(s.sharding));
  if (!sharded && s.sharding != Sharding::Ddp) return fmt::format("{} on one GPU", ShardingName(s.sharding));
  if (sharded && !s.reshard_after_forward) return "FSDP without resharding after forward (SHARD_GRAD_OP)";
  if (sharded && s.optimizer_in_backward) return "the optimizer in backward under FSDP";
  if (sharded && s.fsdp_version == 1 && s.prefetch != 1) return "FSDP1 with a prefetch other than BACKWARD_PRE's one unit";
  return "";
}

TraceLinear Linear(const char* name, int64_t in, int64_t out, bool adapted, bool trained, bool quantized) {
  return {name, in, out, adapted, trained, quantized, false};
}

TraceLayer LayerOf(const Architecture& a, const TrainingSettings& s) {
  TraceLayer l;
  l.hidden = a.hidden;
  l.q = a.q_dim();
  l.kv = a.kv_dim();
  l.heads = a.heads;
  l.intermediate = a.intermediate;
  l.gated_mlp = a.gated_mlp;
  l.qk_norm = a.qk_norm;
  l.norms = a.norms_per_layer;
  const bool full = s.method == Method::Full;
  const bool lora = !full;
  const bool nf4 = s.method == Method::Qlora;
  const LoraTargets& t = s.lora_targets;
  l.linears = {Linear("q_proj", a.hidden, l.q, lora && t.q, full, nf4), Linear("k_proj", a.hidden, l.kv, lora && t.k, full, nf4),
               Linear("v_proj", a.hidden, l.kv, lora && t.v, full, nf4), Linear("o_proj", l.q, a.hidden, lora && t.o, full, nf4)};
  if (a.gated_mlp) l.linears.push_back(Linear("gate_proj", a.hidden, a.intermediate, lora && t.gate, full, nf4));
  l.linears.push_back(Linear("up_proj", a.hidden, a.intermediate, lora && t.up, full, nf4));
  l.linears.push_back(Linear("down_proj", a.intermediate, a.hidden, lora && t.down, full, nf4));
  l.norm_params = 2 * a.hidden + (a.qk_norm ? 2 * a.head_dim : 0);
  l.bias_params = a.qkv_bias ? l.q + 2 * l.kv : 0;
  if (a.o_bias) l.bias_params += a.hidden;
  return l;
}

}  // namespace

const TraceLinear* TraceLayer::Find(const std::string& name) const {
  for (const TraceLinear& l : linears) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

double TraceModel::LayerUnitBytes() const {
  double bytes = static_cast<double>(layer.norm_params + layer.bias_params) * weight_bytes;
  for (const TraceLinear& l : layer.linears) bytes += static_cast<double>(l.params()) * (l.quantized ? nf4_data_bytes : weight_bytes);
  return bytes;
}

double TraceModel::RootUnitBytes() const {
  return static_cast<double>(embedding_params + head_params + final_norm_params) * weight_bytes;
}

Result<TraceModel> TraceModelFor(const ModelInput& model, const TrainingSettings& s, const CalcConstants& k) {
  if (!model.arch) return Status::Error("no architecture (a bare size)");
  const Architecture& a = *model.arch;
  if (const std::string why = NotModelled(a, s); !why.empty()) return Status::Error(why);
  TraceModel m;
  m.layer = LayerOf(a, s);
  m.layers = a.layers;
  m.vocab = a.vocab;
  m.embedding_params = a.vocab * a.hidden;
  m.head_params = a.tied_embeddings ? 0 : a.vocab * a.hidden;
  m.final_norm_params = a.hidden;
  m.tokens = s.batch * s.seq;
  m.lora_rank = s.lora_rank;
  m.adapter_bytes = s.adapter_bytes;
  m.state_bytes = s.method == Method::Full ? kBf16 : s.adapter_bytes;
  m.grad_bytes = m.state_bytes;
  m.nf4_data_bytes = k.nf4_data_bits / 8;
  m.nf4_state_bytes = (k.nf4_bits - k.nf4_data_bits) / 8;
  return m;
}

}  // namespace labcheck::calc::allocator

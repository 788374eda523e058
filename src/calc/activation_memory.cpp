#include "calc/activation_memory.h"

#include <algorithm>

#include "calc/byte_units.h"
#include "calc/rms_norm_bytes.h"
#include "calc/state_layer_activations.h"

namespace labcheck::calc {
namespace {

// GPU-resident layers while activations stream to and from the CPU: the one computing and the one
// being copied (torchtune's OffloadActivations overlaps one transfer with compute).
constexpr double kLayersInFlight = 2;
// torchtune's CEWithChunkedOutputLoss(num_output_chunks=8), the model's output in as many pieces
// (torchtune/modules/loss/ce_chunked_output_loss.py).
constexpr double kLossChunks = 8;

// The layers whose weights get gradients: all of them, or those with adapters.
LoraTargets TrainedLayers(const TrainingSettings& s) {
  return s.method == Method::Full ? LoraTargets::AllLinear() : s.lora_targets;
}

// q, k and v read one input, saved when any of them is trained.
double AttentionActivationBytes(const Architecture& arch, const TrainingSettings& s, const LoraTargets& a) {
  const double h = static_cast<double>(arch.hidden), q = static_cast<double>(arch.q_dim());
  const double kv = static_cast<double>(arch.kv_dim()), heads = static_cast<double>(arch.heads);
  double attention = (a.q || a.k || a.v) ? kBf16 * h : 0;
  if (arch.qk_norm) attention += RmsNormBytes(q + kv, s.compile);  // per-head norms of q and k
  // RoPE multiplies by cos/sin, which need no gradient: nothing per token is saved for it.
  if (s.attention == Attention::Eager) {
    // transformers' eager path repeats k and v to all heads, saves them for the two matmuls, and
    // keeps the FP32 softmax and its BF16 cast: 6 bytes x heads x seq per token.
    attention += kBf16 * 3 * q + (kFp32 + kBf16) * heads * static_cast<double>(s.seq);
  } else {
    attention += kBf16 * (q + 2 * kv);      // fused attention keeps q, k, v (k, v at KV heads)
    attention += kFp32 * heads;             // and the log-sum-exp per head
  }
  attention += kBf16 * q;                   // its output (flash/efficient backward need it)
  if (a.o) attention += kBf16 * q;          // o_proj's input: a contiguous copy of that output
  return attention;
}

// Multi-head latent attention as transformers' DeepseekV3Attention (and V2's) trains it: the input
// feeds q_a_proj (or q_proj) and kv_a_proj_with_mqa; q_a_layernorm and kv_a_layernorm keep their
// RMSNorm tensors and q_b_proj/kv_b_proj their (normalised) inputs; then K and V are decompressed
// per head: q and k at heads x (nope + rope), the rope key expanded to every head, v at heads x
// v_head_dim. Under flash attention transformers pads v, and so the output, to the q/k width.
double LatentAttentionActivationBytes(const Architecture& arch, const TrainingSettings& s, const LoraTargets& a) {
  const LatentAttention& m = arch.mla;
  const double h = static_cast<double>(arch.hidden), heads = static_cast<double>(arch.heads);
  const double qk = heads * static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim);
  const double v = heads * static_cast<double>(m.v_head_dim);
  const double v_attention = s.attention == Attention::Flash ? qk : v;
  double attention = (a.q || a.k || a.v) ? kBf16 * h : 0;
  if (m.q_lora_rank > 0) {
    const double rank = static_cast<double>(m.q_lora_rank);
    attention += RmsNormBytes(rank, s.compile) + (a.q ? kBf16 * rank : 0);
  }
  const double latent = static_cast<double>(m.kv_lora_rank);
  attention += RmsNormBytes(latent, s.compile) + (a.k || a.v ? kBf16 * latent : 0);
  if (s.attention == Attention::Eager) {
    attention += kBf16 * (2 * qk + v) + (kFp32 + kBf16) * heads * static_cast<double>(s.seq);
  } else {
    attention += kBf16 * (2 * qk + v_attention) + kFp32 * heads;  // q, k, v and the log-sum-exp
  }
  attention += kBf16 * v_attention;        // the output
  if (a.o) attention += kBf16 * v;         // o_proj's input, cut back to v_head_dim
  return attention;
}

// What kernels-community/megablocks' MegaBlocksMoeMLP keeps per routed row, in elements (layers.py,
// read at 885c7a29, 2025-10-13, the oldest build stored; the hub build that runs of 2025-08 pulled
// is not stored). forward_once sorts the k x tokens routed rows by expert and binned_gather copies
// them into [experts, capacity, hidden] bins, capacity int(1.0 x k x tokens / experts) (rows beyond
// it are dropped: never more than k x tokens rows); mlp_forward runs torch.bmm over every expert's
// bin, not a dense pass of every token through every expert. Saved for backward: the gathered input
// (w1's gradient), gate_up (the two clamps read strided views of it), the clamped gate, its sigmoid,
// the GLU, up + 1 and their product (w2's input); binned_scatter keeps the experts' output too
// (ops/binned_scatter.py: "TODO(tgale): Don't save 'x' for backwards if we don't need to").
double MegaBlocksRowElements(double h, double w) { return 2 * h + 7 * w; }

// What a layer's adapters read and add (LoRA): the in-features of adapted layers (FP32 copies with
// FP32 adapters) and how many adapted layers there are (rank-wide outputs).
struct LoraShapes {
  double inputs = 0;
  double layers = 0;
};

// Gated MLP: SiLU keeps the gate output, the product keeps activation and up outputs, down_proj
// keeps the product when it is trained. MoE: the router's input and FP32 logits and softmax, and k
// routed copies of the expert's tensors.
double MlpActivationBytes(const Architecture& arch, const TrainingSettings& s, const LoraTargets& a, int64_t layer,
                          LoraShapes& lora) {
  const double h = static_cast<double>(arch.hidden);
  const bool adapters = s.method != Method::Full;
  auto mlp_widths = [&](bool down_trained) {
    if (!arch.gated_mlp) return down_trained ? 2.0 : 1.0;
    return down_trained ? 4.0 : 3.0;
  };
  auto add_mlp_lora = [&](double width, double copies) {
    const double gate = (a.gate && arch.gated_mlp) ? 1 : 0, up = a.up ? 1 : 0, down = a.down ? 1 : 0;
    lora.inputs += copies * ((gate + up) * h + down * width);
    lora.layers += copies * (gate + up + down);
  };
  const bool mlp_input = a.gate || a.up;
  if (arch.IsMoeLayer(layer)) {
    const double k = static_cast<double>(arch.moe.experts_per_token);
    const double w = static_cast<double>(arch.moe.expert_intermediate);
    const double e = static_cast<double>(arch.moe.experts);
    const bool experts_trained = s.method == Method::Full || s.lora_experts;
    double mlp = kBf16 * h;                 // router input
    mlp += 2 * kFp32 * e;                   // router logits and softmax, FP32
    if (s.moe_kernel == MoeKernel::MegaBlocks) {
      mlp += k * kBf16 * MegaBlocksRowElements(h, w);  // full fine-tuning only (training_options.cpp)
    } else {
      mlp += k * ((experts_trained && mlp_input ? kBf16 * h : 0) + kBf16 * mlp_widths(experts_trained && a.down) * w);
    }
    if (adapters && experts_trained) add_mlp_lora(w, k);
    // The shared expert (DeepSeekV3MoE.shared_experts, Qwen2MoeSparseMoeBlock.shared_expert) runs on
    // every token and reads the router's input, already counted; it keeps a gated MLP's tensors at
    // its width, and Qwen's sigmoid gate keeps its 1-wide output and the expert's output it scales.
    const double shared = static_cast<double>(arch.moe.shared_expert_intermediate);
    if (shared > 0) {
      mlp += kBf16 * mlp_widths(a.down) * shared + (arch.moe.shared_expert_gate ? kBf16 * (h + 1) : 0);
      if (adapters) add_mlp_lora(shared, 1);
    }
    return mlp;
  }
  // A dense layer of an MoE model (first_k_dense_replace, mlp_only_layers) or of a dense model.
  const double w = static_cast<double>(arch.intermediate);
  if (adapters) add_mlp_lora(w, 1);
  return (mlp_input ? kBf16 * h : 0) + kBf16 * mlp_widths(a.down) * w;  // gate/up input when trained
}

// The token mixer of `layer`: attention (MLA, or the usual q/k/v), a state mixer (Mamba, Mamba-2,
// Gated DeltaNet: state_layer_activations.h), or none (Nemotron-H's MLP blocks).
void AddMixer(const Architecture& arch, const TrainingSettings& s, const LoraTargets& a, int64_t layer,
              LayerActivationBytes& bytes, LoraShapes& lora) {
  if (arch.mamba.IsMamba(layer)) {
    bytes.state_mixer = StateMixerActivationBytes(arch, s, s.method == Method::Full);
    return;
  }
  if (!arch.HasAttention(layer)) return;
  bytes.attention = arch.mla.enabled() ? LatentAttentionActivationBytes(arch, s, a) : AttentionActivationBytes(arch, s, a);
  if (arch.attn_output_gate) {
    // Qwen3NextAttention.forward: attn_output * torch.sigmoid(gate). The sigmoid keeps its output,
    // the product its other operand (the attention output's contiguous copy), and o_proj's input is
    // the product: 4 x q bytes more than an ungated layer, whether o_proj is trained or not.
    bytes.attention += 2 * kBf16 * static_cast<double>(arch.q_dim());
  }
  const double h = static_cast<double>(arch.hidden);
  const double o_in = arch.mla.enabled() ? static_cast<double>(arch.heads * arch.mla.v_head_dim) : static_cast<double>(arch.q_dim());
  lora.inputs += (a.q ? h : 0) + (a.k ? h : 0) + (a.v ? h : 0) + (a.o ? o_in : 0);
  lora.layers += (a.q ? 1 : 0) + (a.k ? 1 : 0) + (a.v ? 1 : 0) + (a.o ? 1 : 0);
}

// A layer with attention and an MLP (the first one), which every layer of a plain decoder is.
int64_t TypicalLayer(const Architecture& arch) {
  for (int64_t i = 0; i < arch.layers; ++i) {
    if (arch.HasAttention(i) && arch.HasMlp(i)) return i;
  }
  return 0;
}

// The gradients a layer's backward holds at its widest, beside the residual stream's: the gated
// MLP's product gradient (from down_proj) is still alive when those of the gate and up outputs are
// made (eager MulBackward, and compiled alike: one fused kernel reads the first and writes the other
// two), x k experts for MoE; a state mixer's own (state_layer_activations.h). The mixer and the MLP
// run their backward one after the other, so the larger counts. MegaBlocks' gate_up gets its
// gradient from two strided slices: each SliceBackward makes a zero tensor of gate_up's full width
// (2w) and the engine adds the second into the first, 4w per routed row at once.
double LayerGradientBytes(const Architecture& arch, const TrainingSettings& s, int64_t layer) {
  double widest = 0;
  if (arch.HasMlp(layer) && arch.IsMoeLayer(layer) && s.moe_kernel == MoeKernel::MegaBlocks) {
    const double routed = static_cast<double>(arch.moe.experts_per_token * arch.moe.expert_intermediate);
    widest = kBf16 * (4 * routed + 3 * static_cast<double>(arch.moe.shared_expert_intermediate));
  } else if (arch.HasMlp(layer)) {
    const double width = arch.IsMoeLayer(layer)
                             ? static_cast<double>(arch.moe.experts_per_token * arch.moe.expert_intermediate +
                                                   arch.moe.shared_expert_intermediate)
                             : static_cast<double>(arch.intermediate);
    widest = kBf16 * (arch.gated_mlp ? 3 : 2) * width;
  }
  if (arch.mamba.IsMamba(layer)) widest = std::max(widest, StateMixerBackwardBytes(arch));
  return widest + kBf16 * 2 * static_cast<double>(arch.hidden);
}

}  // namespace

LayerActivationBytes LayerActivationsPerToken(const Architecture& arch, const TrainingSettings& s, int64_t layer) {
  const LoraTargets a = TrainedLayers(s);
  LayerActivationBytes bytes;
  LoraShapes lora;
  bytes.norms = arch.norms_per_layer * RmsNormBytes(static_cast<double>(arch.hidden), s.compile);
  AddMixer(arch, s, a, layer, bytes, lora);
  if (arch.HasMlp(layer)) bytes.mlp = MlpActivationBytes(arch, s, a, layer, lora);
  if (s.method != Method::Full) {
    // PEFT casts each adapted layer's input to the adapter dtype before lora_A; with FP32 adapters
    // that is a new FP32 copy that lora_A keeps for its weight gradient (BF16 adapters reuse the
    // input already counted). With lora_dropout > 0 lora_A keeps the dropout's output instead, a
    // new tensor in the adapter dtype, and the dropout its mask (torch native_dropout: one bool per
    // element). lora_B keeps lora_A's rank-wide output.
    const bool fp32 = s.adapter_bytes > kBf16;
    const double adapter_input = s.lora_dropout > 0 ? s.adapter_bytes + 1 : (fp32 ? kFp32 : 0);
    bytes.lora = adapter_input * lora.inputs + s.adapter_bytes * static_cast<double>(s.lora_rank) * lora.layers;
  }
  return bytes;
}

LayerActivationBytes LayerActivationsPerToken(const Architecture& arch, const TrainingSettings& s) {
  return LayerActivationsPerToken(arch, s, TypicalLayer(arch));
}

double SavedActivationBytes(const Architecture& arch, const TrainingSettings& s) {
  const double h = static_cast<double>(arch.hidden);
  // Final norm; lm_head keeps its input only when it is trained (full fine-tuning).
  const double head = RmsNormBytes(h, s.compile) + (s.method == Method::Full ? kBf16 * h : 0);
  const double layers = static_cast<double>(arch.layers);
  // Every layer as its own kind saves it; with checkpointing only each layer's input (transformers'
  // GradientCheckpointingLayer wraps every decoder layer, and every Nemotron-H block).
  double all_layers = 0, largest = 0;
  for (int64_t i = 0; i < arch.layers; ++i) {
    const double layer = LayerActivationsPerToken(arch, s, i).total();
    all_layers += layer;
    largest = std::max(largest, layer);
  }
  double stored_layers = s.checkpointing ? layers * kBf16 * h : all_layers;
  if (s.offload.activations) {
    stored_layers = std::min(stored_layers, kLayersInFlight * (s.checkpointing ? kBf16 * h : largest));
  }
  return (stored_layers + head) * static_cast<double>(s.batch * s.seq);
}

double LayerBackwardBytes(const Architecture& arch, const TrainingSettings& s) {
  // The layer whose backward holds the most: its saved tensors recomputed (checkpointing) and its
  // gradients at their widest.
  double widest = 0;
  for (int64_t i = 0; i < arch.layers; ++i) {
    const double recomputed = s.checkpointing ? LayerActivationsPerToken(arch, s, i).total() : 0;
    widest = std::max(widest, recomputed + LayerGradientBytes(arch, s, i));
  }
  return widest * static_cast<double>(s.batch * s.seq);
}

double LogitsBytes(const Architecture& arch, const TrainingSettings& s) {
  const double v = static_cast<double>(arch.vocab);
  double per_token = 0;
  switch (s.loss) {
    case LossKind::Full:
      // BF16 logits kept in the output (2V), FP32 log-probabilities saved by cross-entropy (4V),
      // the FP32 gradients of the log-probs and of the upcast logits at the start of backward (8V).
      // With keep_logits the output holds the FP32 upcast instead, counted by KeptLogitsBytes.
      per_token = (s.keep_logits ? 0 : kBf16) * v + (kFp32 + 2 * kFp32) * v;
      break;
    case LossKind::Chunked:
      // Every chunk's BF16 logits and FP32 log-probs stay for backward (6V); one chunk at a time
      // has its gradients: FP32 of the upcast and its BF16 cast (6V / chunks).
      per_token = (kBf16 + kFp32) * v + (kFp32 + kBf16) * v / kLossChunks;
      break;
    case LossKind::Fused:
      // Output layer and loss in one chunked kernel: the BF16 gradient of the hidden state is
      // computed in forward (2h) and one chunk of FP32 logits and their gradient is alive; Liger
      // sizes chunks to tokens x hidden / vocab, so that chunk is about 8h per token.
      per_token = (kBf16 + 2 * kFp32) * static_cast<double>(arch.hidden);
      break;
  }
  // torch.compile of the loss (torchtune compiles it with the model) fuses the upcast, the
  // log-softmax and its backward: the FP32 log-probabilities are recomputed, not saved (4V less),
  // and a chunk's gradient comes out in BF16 (2V / chunks instead of 6V / chunks).
  if (s.compile && s.loss != LossKind::Fused) per_token -= kFp32 * v;
  if (s.compile && s.loss == LossKind::Chunked) per_token -= kFp32 * v / kLossChunks;
  return per_token * static_cast<double>(s.batch * s.seq);
}

double KeptLogitsBytes(const Architecture& arch, const TrainingSettings& s) {
  // transformers' LlamaForCausalLM.forward before 4.46: `logits = logits.float()`, returned in
  // CausalLMOutputWithPast; a loop that holds the output (fsdp_qlora train.py: `output = model(...)`,
  // `loss.backward()`, then `output = None`) keeps these 4 bytes x vocabulary per token through every
  // layer's backward, not only the loss's.
  if (!s.keep_logits) return 0;
  return kFp32 * static_cast<double>(arch.vocab) * static_cast<double>(s.batch * s.seq);
}

}  // namespace labcheck::calc

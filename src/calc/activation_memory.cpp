#include "calc/activation_memory.h"

namespace labcheck::calc {
namespace {

constexpr double kBf16 = 2;
constexpr double kFp32 = 4;

// HF LlamaRMSNorm (and its Qwen/Mistral/Gemma copies) upcasts to FP32, so backward keeps the FP32
// input and the normalised BF16 tensor that multiplies the weight.
double RmsNormBytes(double width) { return (kFp32 + kBf16) * width; }

}  // namespace

LayerActivationBytes LayerActivationsPerToken(const Architecture& arch, int64_t lora_rank) {
  const double h = static_cast<double>(arch.hidden);
  const double q = static_cast<double>(arch.q_dim());
  const double kv = static_cast<double>(arch.kv_dim());
  LayerActivationBytes bytes;
  bytes.norms = arch.norms_per_layer * RmsNormBytes(h);

  double attention = kBf16 * h;                       // input of q, k, v projections (shared)
  if (arch.qk_norm) attention += RmsNormBytes(q + kv);  // per-head norms of q and k
  attention += 2 * kBf16 * (q + kv);                  // RoPE: q, k and their rotate_half copies
  attention += kBf16 * (q + 2 * kv);                  // fused attention keeps q, k, v (k, v at KV heads)
  attention += kBf16 * q;                             // its output, also the o_proj input
  attention += kFp32 * static_cast<double>(arch.heads);  // log-sum-exp per head
  bytes.attention = attention;

  // Gated MLP keeps gate output (for the activation), activation output and up output (for the
  // product) and the product (for down_proj): 4 tensors of the MLP width. A plain MLP keeps 2.
  const double per_width = arch.gated_mlp ? 4 * kBf16 : 2 * kBf16;
  double mlp = kBf16 * h;  // input of the MLP (or of the router)
  double lora_widths = 0;  // sum of in-features of the adapted MLP layers, for LoRA
  double lora_layers = 4;  // q, k, v, o
  if (arch.moe.enabled()) {
    const double k = static_cast<double>(arch.moe.experts_per_token);
    const double w = static_cast<double>(arch.moe.expert_intermediate);
    const double e = static_cast<double>(arch.moe.experts);
    mlp += 2 * kFp32 * e;                  // router logits and softmax, FP32
    mlp += k * (kBf16 * h + per_width * w);  // each routed copy of the token through its expert
    lora_widths = k * ((arch.gated_mlp ? 2 : 1) * h + w);
    lora_layers += k * (arch.gated_mlp ? 3 : 2);
  } else {
    const double w = static_cast<double>(arch.intermediate);
    mlp += per_width * w;
    lora_widths = (arch.gated_mlp ? 2 : 1) * h + w;
    lora_layers += arch.gated_mlp ? 3 : 2;
  }
  bytes.mlp = mlp;

  if (lora_rank > 0) {
    // PEFT casts each adapted layer's input to the adapter's FP32 dtype before lora_A, and lora_A
    // keeps that copy for its weight gradient; lora_B keeps lora_A's rank-wide FP32 output.
    const double attention_inputs = 3 * h + q;  // q, k, v read h; o reads q
    bytes.lora = kFp32 * (attention_inputs + lora_widths) + kFp32 * static_cast<double>(lora_rank) * lora_layers;
  }
  return bytes;
}

double ActivationBytes(const Architecture& arch, int64_t tokens, bool checkpointing, int64_t lora_rank) {
  const double per_layer = LayerActivationsPerToken(arch, lora_rank).total();
  const double h = static_cast<double>(arch.hidden);
  const double head = RmsNormBytes(h) + kBf16 * h;  // final norm + lm_head input
  const double layers = static_cast<double>(arch.layers);
  const double per_token = checkpointing ? layers * kBf16 * h + per_layer + head : layers * per_layer + head;
  return per_token * static_cast<double>(tokens);
}

double LogitsBytes(const Architecture& arch, int64_t tokens) {
  const double per_token = (kBf16 + kFp32 + 2 * kFp32) * static_cast<double>(arch.vocab);
  return per_token * static_cast<double>(tokens);
}

}  // namespace labcheck::calc

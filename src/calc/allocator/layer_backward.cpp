// A decoder layer's backward in autograd's order: each node allocates the gradients of its inputs,
// drops the gradient it consumed and what it saved. Gradients of one tensor from several users are
// added into the first (autograd's InputBuffer). The widest point is the gated MLP's: the product's
// gradient beside those of the activation and up_proj's output (LayerGradientBytes).
#include "calc/allocator/step_program_internal.h"

namespace labcheck::calc::allocator {

// RMSNorm backward: weight * grad, the cast back to FP32, the product with rsqrt and the variance
// path, the cast to BF16.
Tensor Program::NormBackward(Tensor grad, int64_t width, Tensor& fp32, Tensor& bf16) {
  const double w = static_cast<double>(width);
  if (s_.compile) {
    Tensor in = Act(2 * w, "inductor.fused_rmsnorm");
    Free(grad), Free(fp32), Free(bf16);
    return in;
  }
  Tensor g_bf16 = Act(2 * w, "torch.autograd.mul_backward");
  Free(grad);
  Tensor g_scaled = Act(4 * w, "torch.autograd.to_copy_backward");
  Free(g_bf16);
  Tensor g_input = Act(4 * w, "torch.autograd.mul_backward");
  Tensor g_variance = Act(4 * w, "torch.autograd.pow_backward");
  Free(g_scaled);
  Accumulate(g_input, g_variance);
  Tensor in = Act(2 * w, "torch.autograd.to_copy_backward");
  Free(g_input);
  Free(fp32);
  Free(bf16);
  return in;
}

// A projection's backward: LoRA's branch first (its nodes are the later ones), then the base
// matmul against the dequantised NF4 weight (bitsandbytes' MatMul4Bit.backward dequantises again).
Tensor Program::LinearBackward(int64_t layer, size_t index, Tensor grad, LayerSaved& sv) {
  const TraceLinear& l = m_.layer.linears[index];
  const double in = static_cast<double>(l.in), out = static_cast<double>(l.out);
  Tensor from_lora = kNone;
  if (l.adapted) {
    const double ab = m_.adapter_bytes;
    LoraSaved& ls = sv.lora[index];
    hooks_.Adapter(b_, layer, index, true, AdapterPass::Backward);
    Tensor g_lora_b = Act(ab * out, "torch.autograd.mul_backward");            // through `* scaling`
    Tensor g_lora_a = Act(ab * static_cast<double>(m_.lora_rank), "torch.autograd.mm_backward");
    Free(g_lora_b);
    Tensor g_dropout = Act(ab * in, "torch.autograd.mm_backward");
    Free(g_lora_a);
    Free(ls.lora_a);
    hooks_.AdapterGrad(b_, layer, index);
    from_lora = Act(2 * in, "torch.autograd.native_dropout_backward");
    Free(g_dropout);
    Free(ls.dropout);
    Free(ls.mask);
    hooks_.Adapter(b_, layer, index, false, AdapterPass::Backward);
  }
  Tensor weight = l.quantized ? b_.Alloc(in * out * 2, kCompute, "bnb.matmul_4bit.dequantize") : kNone;
  Tensor g_in = Act(2 * in, l.quantized ? "bnb.matmul_4bit.backward" : "torch.autograd.mm_backward");
  Free(weight);
  if (l.trained) hooks_.WeightGrad(b_, layer, index);
  Accumulate(g_in, from_lora);
  (void)grad;
  return g_in;
}

// RoPE's backward: the gradient through `* cos` and through rotate_half's cat and `* sin`.
Tensor Program::RopeBackward(Tensor grad, int64_t width) {
  const double w = static_cast<double>(width);
  Tensor through_cos = Act(2 * w, "torch.autograd.mul_backward");
  Tensor through_sin = Act(2 * w, "torch.autograd.mul_backward");
  Tensor unrotated = Act(2 * w, "torch.autograd.cat_backward");
  Free(through_sin);
  Accumulate(through_cos, unrotated);
  Free(grad);
  return through_cos;
}

Tensor Program::MlpBackward(int64_t index, Tensor grad, LayerSaved& sv) {
  const TraceLayer& L = m_.layer;
  const double w = static_cast<double>(L.intermediate);
  const size_t up = LinearIndex("up_proj"), down = LinearIndex("down_proj");
  Tensor g_prod = LinearBackward(index, down, grad, sv);
  Free(sv.prod);
  Tensor g_n2 = kNone;
  if (L.gated_mlp) {
    Tensor g_act = Act(2 * w, "torch.autograd.mul_backward");
    Tensor g_up = Act(2 * w, "torch.autograd.mul_backward");
    Free(g_prod);
    Free(sv.act);
    Free(sv.up);
    Tensor g_gate = Act(2 * w, "torch.autograd.silu_backward");
    Free(g_act);
    Free(sv.gate);
    g_n2 = LinearBackward(index, up, g_up, sv);
    Free(g_up);
    Tensor g_from_gate = LinearBackward(index, LinearIndex("gate_proj"), g_gate, sv);
    Free(g_gate);
    Accumulate(g_n2, g_from_gate);
  } else {
    Tensor g_fc1 = Act(2 * w, "torch.autograd.gelu_backward");
    Free(g_prod);
    Free(sv.up);
    g_n2 = LinearBackward(index, up, g_fc1, sv);
    Free(g_fc1);
  }
  Free(sv.n2_out);
  return NormBackward(g_n2, L.hidden, sv.n2_fp32, sv.n2_bf16);
}

Tensor Program::AttentionBackward(int64_t index, Tensor grad, LayerSaved& sv) {
  const TraceLayer& L = m_.layer;
  Tensor g_o_in = LinearBackward(index, LinearIndex("o_proj"), grad, sv);
  Free(sv.o_in);
  Tensor g_attn = Act(2.0 * L.q, "torch.autograd.view_backward");  // the output's gradient, contiguous
  Free(g_o_in);
  // Flash/efficient attention's backward: dq, dk, dv and an FP32 dq accumulator with softmax's row sums.
  Tensor g_q = Act(2.0 * L.q, "torch.autograd.scaled_dot_product_attention_backward");
  Tensor g_k = Act(2.0 * L.kv, "torch.autograd.scaled_dot_product_attention_backward");
  Tensor g_v = Act(2.0 * L.kv, "torch.autograd.scaled_dot_product_attention_backward");
  Tensor workspace = Act(4.0 * L.q + 4.0 * L.heads, "torch.autograd.scaled_dot_product_attention_backward");
  Free(workspace);
  Free(g_attn);
  Free(sv.attn), Free(sv.lse), Free(sv.q), Free(sv.k);
  Free(sv.v);
  g_q = RopeBackward(g_q, L.q);
  g_k = RopeBackward(g_k, L.kv);
  if (L.qk_norm) {
    g_q = NormBackward(g_q, L.q, sv.qn_fp32, sv.qn_bf16);
    g_k = NormBackward(g_k, L.kv, sv.kn_fp32, sv.kn_bf16);
  }
  Tensor g_n1 = LinearBackward(index, LinearIndex("v_proj"), g_v, sv);
  Free(g_v);
  Tensor g_from_k = LinearBackward(index, LinearIndex("k_proj"), g_k, sv);
  Free(g_k);
  Accumulate(g_n1, g_from_k);
  Tensor g_from_q = LinearBackward(index, LinearIndex("q_proj"), g_q, sv);
  Free(g_q);
  Accumulate(g_n1, g_from_q);
  Free(sv.n1_out);
  return NormBackward(g_n1, L.hidden, sv.n1_fp32, sv.n1_bf16);
}

// The residual adds pass the incoming gradient to both of their inputs; each branch's gradient is
// added into it.
Tensor Program::LayerBackward(int64_t index, Tensor grad, LayerSaved& sv) {
  Tensor from_mlp = MlpBackward(index, grad, sv);
  Accumulate(grad, from_mlp);
  Tensor from_attention = AttentionBackward(index, grad, sv);
  Accumulate(grad, from_attention);
  return grad;
}

}  // namespace labcheck::calc::allocator

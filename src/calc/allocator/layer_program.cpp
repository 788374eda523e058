// One decoder layer as transformers' LlamaDecoderLayer runs it (and Mistral's, Qwen's, Yi's, which
// share its code): RMSNorm, q/k/v projections (with PEFT's LoRA branch, bitsandbytes' NF4 matmul),
// RoPE, SDPA/flash attention, o_proj, the residual add, RMSNorm, the gated MLP, the residual add;
// then its backward in autograd's order (the reverse), allocating the gradients of activations and
// freeing what each node saved once it has run. What the layer saves is what
// LayerActivationsPerToken counts, tensor by tensor (a test holds the sums equal).
#include <algorithm>

#include "calc/allocator/step_program_internal.h"

namespace labcheck::calc::allocator {
namespace {

bool Trained(const TraceLinear& l) { return l.trained || l.adapted; }

}  // namespace

size_t Program::LinearIndex(const char* name) const {
  for (size_t i = 0; i < m_.layer.linears.size(); ++i) {
    if (m_.layer.linears[i].name == name) return i;
  }
  return m_.layer.linears.size();
}

// LlamaRMSNorm.forward: `hidden_states.to(torch.float32)`, `pow(2).mean(-1)`, `* torch.rsqrt(...)`,
// `self.weight * hidden_states.to(input_dtype)`. Backward keeps the FP32 input and the BF16 product
// (RmsNormBytes); compiled, one BF16 tensor.
Tensor Program::Norm(Tensor x, int64_t width, bool save, Tensor& fp32, Tensor& bf16) {
  (void)x;
  const double w = static_cast<double>(width);
  if (s_.compile) {
    fp32 = Act(2 * w, "inductor.fused_rmsnorm");
    Tensor out = Act(2 * w, "inductor.fused_rmsnorm");
    if (!save) Free(fp32);
    return out;
  }
  fp32 = Act(4 * w, "hf.llama.rmsnorm");
  Tensor squared = Act(4 * w, "hf.llama.rmsnorm");
  Free(squared);
  Tensor scaled = Act(4 * w, "hf.llama.rmsnorm");
  bf16 = Act(2 * w, "hf.llama.rmsnorm");
  Free(scaled);
  Tensor out = Act(2 * w, "hf.llama.rmsnorm");
  if (!save) {
    Free(fp32);
    Free(bf16);
  }
  return out;
}

// A projection: bitsandbytes dequantises an NF4 weight to BF16 for the matmul; PEFT's LoRA branch
// adds lora_B(lora_A(dropout(x))) * scaling to the result (peft/tuners/lora/bnb.py clones the
// 4-bit result first and adds in place; peft/tuners/lora/layer.py adds out of place).
Tensor Program::Linear(int64_t layer, size_t index, Tensor x, bool save, bool recompute, LayerSaved& sv) {
  (void)x;
  const TraceLinear& l = m_.layer.linears[index];
  const double in = static_cast<double>(l.in), out = static_cast<double>(l.out);
  Tensor weight = l.quantized ? b_.Alloc(in * out * 2, kCompute, "bnb.matmul_4bit.dequantize") : kNone;
  Tensor y = Act(2 * out, l.quantized ? "bnb.matmul_4bit" : "torch.nn.functional.linear");
  Free(weight);
  if (!l.adapted) return y;
  const double ab = m_.adapter_bytes;
  hooks_.Adapter(b_, layer, index, true, recompute ? AdapterPass::Recompute : AdapterPass::Forward);
  if (l.quantized) {
    Tensor copy = Act(2 * out, "peft.lora.bnb.clone");
    Free(y);
    y = copy;
  }
  LoraSaved ls;
  if (s_.lora_dropout > 0) {
    ls.dropout = Act(ab * in, "peft.lora.dropout");
    ls.mask = Act(1 * in, "peft.lora.dropout");
  } else if (ab > 2) {
    ls.dropout = Act(4 * in, "peft.lora.cast_input");
  }
  ls.lora_a = Act(ab * static_cast<double>(m_.lora_rank), "peft.lora.lora_a");
  Tensor lora_b = Act(ab * out, "peft.lora.lora_b");
  Tensor scaled = Act(ab * out, "peft.lora.scaling");
  Free(lora_b);
  if (!l.quantized) {
    Tensor sum = Act(2 * out, "peft.lora.add");
    Free(y);
    y = sum;
  }
  Free(scaled);
  hooks_.Adapter(b_, layer, index, false, recompute ? AdapterPass::Recompute : AdapterPass::Forward);
  if (save) {
    sv.lora[index] = ls;
  } else {
    Free(ls.dropout);
    Free(ls.mask);
    Free(ls.lora_a);
  }
  return y;
}

// transformers' apply_rotary_pos_emb: `(q * cos) + (rotate_half(q) * sin)`; rotate_half cats the
// negated second half with the first. Multiplying by constants saves nothing.
Tensor Program::Rope(int64_t width) {
  const double w = static_cast<double>(width);
  Tensor cos_part = Act(2 * w, "hf.llama.rope");
  Tensor negated = Act(w, "hf.llama.rope");
  Tensor rotated = Act(2 * w, "hf.llama.rope");
  Free(negated);
  Tensor sin_part = Act(2 * w, "hf.llama.rope");
  Free(rotated);
  Tensor out = Act(2 * w, "hf.llama.rope");
  Free(cos_part);
  Free(sin_part);
  return out;
}

Tensor Program::Attention(int64_t index, Tensor x, bool save, bool recompute, bool free_input, LayerSaved& sv) {
  const TraceLayer& L = m_.layer;
  sv.n1_out = Norm(x, L.hidden, save, sv.n1_fp32, sv.n1_bf16);
  Tensor q = Linear(index, LinearIndex("q_proj"), sv.n1_out, save, recompute, sv);
  Tensor k = Linear(index, LinearIndex("k_proj"), sv.n1_out, save, recompute, sv);
  sv.v = Linear(index, LinearIndex("v_proj"), sv.n1_out, save, recompute, sv);
  const bool qkv_trained = Trained(*L.Find("q_proj")) || Trained(*L.Find("k_proj")) || Trained(*L.Find("v_proj"));
  if (!save || !qkv_trained) Free(sv.n1_out);
  if (L.qk_norm) {
    Tensor qn = Norm(q, L.q, save, sv.qn_fp32, sv.qn_bf16);
    Free(q);
    q = qn;
    Tensor kn = Norm(k, L.kv, save, sv.kn_fp32, sv.kn_bf16);
    Free(k);
    k = kn;
  }
  sv.q = Rope(L.q);
  Free(q);
  sv.k = Rope(L.kv);
  Free(k);
  sv.attn = Act(2.0 * L.q, "torch.nn.functional.scaled_dot_product_attention");
  sv.lse = Act(4.0 * L.heads, "torch.nn.functional.scaled_dot_product_attention");
  Tensor o_in = Act(2.0 * L.q, "hf.llama.attention_output");  // attn_output.transpose(1, 2).contiguous()
  if (!save) {
    Free(sv.q), Free(sv.k), Free(sv.v), Free(sv.attn), Free(sv.lse);
  }
  const size_t o = LinearIndex("o_proj");
  Tensor projected = Linear(index, o, o_in, save, recompute, sv);
  if (save && Trained(L.linears[o])) sv.o_in = o_in;
  else Free(o_in);
  Tensor h1 = Act(2.0 * L.hidden, "hf.llama.residual");
  Free(projected);
  if (free_input) b_.Free(x);
  return h1;
}

Tensor Program::Mlp(int64_t index, Tensor h1, bool save, bool recompute, LayerSaved& sv) {
  const TraceLayer& L = m_.layer;
  const double w = static_cast<double>(L.intermediate);
  sv.n2_out = Norm(h1, L.hidden, save, sv.n2_fp32, sv.n2_bf16);
  const size_t up = LinearIndex("up_proj"), down = LinearIndex("down_proj");
  if (L.gated_mlp) {
    const size_t gate = LinearIndex("gate_proj");
    sv.gate = Linear(index, gate, sv.n2_out, save, recompute, sv);
    sv.up = Linear(index, up, sv.n2_out, save, recompute, sv);
    if (!save || !(Trained(L.linears[gate]) || Trained(L.linears[up]))) Free(sv.n2_out);
    sv.act = Act(2 * w, "hf.llama.mlp");   // act_fn(gate_proj(x))
    sv.prod = Act(2 * w, "hf.llama.mlp");  // ... * up_proj(x)
    if (!save) Free(sv.gate), Free(sv.up), Free(sv.act);
  } else {
    sv.up = Linear(index, up, sv.n2_out, save, recompute, sv);  // fc1
    if (!save || !Trained(L.linears[up])) Free(sv.n2_out);
    sv.prod = Act(2 * w, "hf.llama.mlp");  // act(fc1(x))
    if (!save) Free(sv.up);
  }
  Tensor projected = Linear(index, down, sv.prod, save, recompute, sv);
  if (!save || !Trained(L.linears[down])) Free(sv.prod);
  Tensor h2 = Act(2.0 * L.hidden, "hf.llama.residual");
  Free(projected);
  return h2;
}

Tensor Program::Layer(int64_t index, Tensor x, bool save, bool recompute, bool free_input, LayerSaved& sv) {
  sv.lora.assign(m_.layer.linears.size(), LoraSaved{});
  hooks_.LayerForward(b_, index, true, recompute);
  Tensor h1 = Attention(index, x, save, recompute, free_input, sv);
  Tensor h2 = Mlp(index, h1, save, recompute, sv);
  Free(h1);  // the residual stream's sum: nothing saves it
  hooks_.LayerForward(b_, index, false, recompute);
  return h2;
}

}  // namespace labcheck::calc::allocator

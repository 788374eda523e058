"""A Llama-style decoder in plain PyTorch: RMSNorm, rotary embeddings, SwiGLU, grouped-query
attention, output projection tied to the embedding.

It deliberately does not use `transformers`: its training speed is the basis of the course's
first correction coefficient, which must not change when a library is upgraded. Works on torch
1.13 (plain attention) and 2.x (scaled_dot_product_attention).
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass(frozen=True)
class LlamaConfig:
    name: str
    vocab: int
    d_model: int
    layers: int
    heads: int
    kv_heads: int
    ffn: int
    seq_len: int
    batch: int


# ~168M parameters: 12 layers of d_model 1024 (16 query heads, 4 key/value heads, SwiGLU 2816)
# and a 32000-token vocabulary, the size of the course's "Llama ~170M" benchmark.
GPU_CONFIG = LlamaConfig("gpu_170m", vocab=32000, d_model=1024, layers=12, heads=16, kv_heads=4,
                         ffn=2816, seq_len=1024, batch=8)
# Runs in well under a second on one CPU core; it exercises the code path, nothing more.
CPU_TINY_CONFIG = LlamaConfig("cpu_tiny", vocab=512, d_model=64, layers=2, heads=4, kv_heads=2,
                              ffn=176, seq_len=64, batch=4)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        # Normalise in FP32: in BF16 the mean of squares loses too many bits.
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return (normed * self.weight).to(x.dtype)


def rotary_tables(seq_len, head_dim, base=10000.0, device=None):
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, device=device).float() / head_dim))
    angles = torch.outer(torch.arange(seq_len, device=device).float(), inv_freq)
    angles = torch.cat([angles, angles], dim=-1)
    return angles.cos(), angles.sin()


def rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat([-second, first], dim=-1)


def apply_rotary(x, cos, sin):
    return (x * cos + rotate_half(x) * sin).to(x.dtype)


def causal_attention(q, k, v):
    """q, k, v: (batch, heads, seq, head_dim), k and v already expanded to all query heads."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True), "sdpa"
    seq = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    mask = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    scores = scores.masked_fill(mask, float("-inf"))
    return scores.softmax(dim=-1).to(v.dtype) @ v, "manual"


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads, self.kv_heads = cfg.heads, cfg.kv_heads
        self.head_dim = cfg.d_model // cfg.heads
        self.q_proj = nn.Linear(cfg.d_model, cfg.heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, cfg.kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, cfg.kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(cfg.heads * self.head_dim, cfg.d_model, bias=False)
        self.impl = None

    def forward(self, x, cos, sin):
        batch, seq, _ = x.shape
        q = self.q_proj(x).view(batch, seq, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        # Grouped-query attention: each key/value head serves heads / kv_heads query heads.
        group = self.heads // self.kv_heads
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        out, self.impl = causal_attention(q, k, v)
        return self.o_proj(out.transpose(1, 2).reshape(batch, seq, -1))


class SwiGLU(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.d_model, cfg.ffn, bias=False)
        self.up_proj = nn.Linear(cfg.d_model, cfg.ffn, bias=False)
        self.down_proj = nn.Linear(cfg.ffn, cfg.d_model, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model)
        self.attn = Attention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model)
        self.mlp = SwiGLU(cfg)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.attn_norm(x), cos, sin)
        return x + self.mlp(self.mlp_norm(x))


class Llama(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.norm = RMSNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab, bias=False)
        self.head.weight = self.embed.weight  # tied, as in small Llamas
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
        head_dim = cfg.d_model // cfg.heads
        cos, sin = rotary_tables(cfg.seq_len, head_dim)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, tokens, targets):
        seq = tokens.shape[1]
        cos, sin = self.cos[:seq], self.sin[:seq]
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x, cos, sin)
        logits = self.head(self.norm(x))
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), targets.reshape(-1))

    def attention_impl(self):
        return self.blocks[0].attn.impl


def parameter_counts(model):
    """(all parameters, parameters that take part in matrix multiplies).

    The second is the N of 6·N·tokens: every layer's weights plus the output projection, which is
    tied to the embedding; the embedding lookup itself costs no multiplies. Norm weights are
    elementwise and left out.
    """
    total = sum(p.numel() for p in model.parameters())
    matmul = sum(m.weight.numel() for m in model.modules() if isinstance(m, nn.Linear))
    return total, matmul


def flops_per_token(cfg, matmul_params):
    """Training FLOPs per token: (dense, attention).

    Dense: 6·N (forward 2·N, backward 4·N). Attention scores and the weighted sum of values:
    12·layers·d_model·seq_len, counting the full (non-causal) score matrix, as in the PaLM paper's
    appendix B. Causal kernels skip about half of it, so this is an upper count.
    """
    return 6 * matmul_params, 12 * cfg.layers * cfg.d_model * cfg.seq_len

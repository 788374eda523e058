"""Smoke test `flash_attention`: the flash_attn package (when installed) and PyTorch's SDPA with
only the flash backend allowed, each compared with plain attention computed in FP32.

Each variant reports on its own ("ran" with its largest error, "skip" with a reason, or "error");
the C++ side judges them against its tolerance. Runs in its own process: a flash_attn wheel built
for another torch fails with undefined symbols or worse.
"""
import math

import torch

from smoke_common import (compute_capability, dist_version, error_result, gpu_count,
                          module_present, package_missing, ran, skip, torch_too_old,
                          version_tuple)

BATCH, SEQ, HEADS, HEAD_DIM = 2, 512, 8, 64
# FlashAttention 2 (both the package and PyTorch's backend in BF16) needs Ampere (sm_80) or newer.
MIN_CC = (8, 0)


def precheck(facts):
    if gpu_count(facts) == 0:
        return skip("no_gpu")
    if compute_capability(facts) < MIN_CC:
        return skip("gpu_too_old", needed="8.0", have=facts["devices"][0]["cc"])
    return None


def reference_attention(q, k, v):
    """Plain causal attention in FP32; q, k, v: (batch, heads, seq, head_dim)."""
    q, k, v = q.float(), k.float(), v.float()
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=q.device).triu(1)
    return scores.masked_fill(mask, float("-inf")).softmax(dim=-1) @ v


def sdpa_flash_only():
    """A context in which SDPA may use only the flash kernel (it raises if that cannot run)."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel  # torch >= 2.3
        return sdpa_kernel(SDPBackend.FLASH_ATTENTION)
    except ImportError:
        return torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False,
                                              enable_mem_efficient=False)


def run_sdpa(q, k, v, expected):
    if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        return torch_too_old("2.0", torch.__version__)
    with sdpa_flash_only():
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.cuda.synchronize()
    return ran(max_abs_err=float((out.float() - expected).abs().max()))


def run_flash_attn(q, k, v, expected):
    if not module_present("flash_attn"):
        return package_missing("flash-attn", module="flash_attn")
    from flash_attn import flash_attn_func

    # flash_attn takes (batch, seq, heads, head_dim).
    out = flash_attn_func(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=True)
    torch.cuda.synchronize()
    return ran(max_abs_err=float((out.transpose(1, 2).float() - expected).abs().max()),
               version=dist_version("flash-attn") or dist_version("flash_attn"))


def run(facts, budget_s):
    generator = torch.Generator(device="cuda:0").manual_seed(0)
    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    q, k, v = (torch.randn(shape, device="cuda:0", dtype=torch.bfloat16, generator=generator)
               for _ in range(3))
    expected = reference_attention(q, k, v)
    variants = {}
    for name, runner in (("flash_attn", run_flash_attn), ("sdpa_flash", run_sdpa)):
        try:
            variants[name] = runner(q, k, v, expected)
        except Exception as exc:  # one variant failing must not hide the other
            variants[name] = error_result(exc, stage=name)
    return ran(dtype="bfloat16", shape=[BATCH, HEADS, SEQ, HEAD_DIM], variants=variants,
               torch_version=torch.__version__,
               torch_at_least_2=version_tuple(torch.__version__) >= (2, 0))

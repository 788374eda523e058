"""Smoke test `llama_train`: training throughput of the plain-PyTorch Llama (smoke_llama_model).

On a GPU: the ~170M configuration in BF16 autocast (FP32 master weights, AdamW) on device 0 for a
fixed number of steps after warm-up. On a CPU: the tiny configuration, which only proves that the
path works; its figures are not comparable with anything.
"""
import os
import time

import torch

from smoke_common import gpu_count, ran, skip
from smoke_llama_model import (CPU_TINY_CONFIG, GPU_CONFIG, Llama, flops_per_token,
                               parameter_counts)

GPU_STEPS = (3, 10)  # (warm-up, measured)
CPU_STEPS = (1, 3)


def force_cpu():
    # Lets a GPU machine exercise the CPU path too (scripts/device-check.sh uses it).
    return os.environ.get("LABCHECK_SMOKE_FORCE_CPU") == "1"


def precheck(facts):
    if gpu_count(facts) > 0 and not force_cpu():
        if not torch.cuda.is_bf16_supported():
            return skip("bf16_unsupported", device_name=facts["devices"][0]["name"],
                        cc=facts["devices"][0]["cc"])
    return None


def is_out_of_memory(exc):
    return "out of memory" in str(exc).lower()


def train(cfg, device, batch, steps):
    torch.manual_seed(0)
    model = Llama(cfg).to(device)
    fused = {"fused": True} if device.type == "cuda" and _adamw_has_fused() else {}
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, **fused)
    data = torch.randint(cfg.vocab, (batch, cfg.seq_len + 1), device=device)
    inputs, targets = data[:, :-1], data[:, 1:]
    warmup, measured = steps
    losses = []

    def step():
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            loss = model(inputs, targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.detach())

    for _ in range(warmup):
        step()
    synchronize(device)
    started = time.perf_counter()
    for _ in range(measured):
        step()
    synchronize(device)
    elapsed = time.perf_counter() - started
    return model, elapsed, [float(loss) for loss in losses]


def _adamw_has_fused():
    import inspect
    return "fused" in inspect.signature(torch.optim.AdamW).parameters


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def run(facts, budget_s):
    on_gpu = gpu_count(facts) > 0 and not force_cpu()
    cfg = GPU_CONFIG if on_gpu else CPU_TINY_CONFIG
    steps = GPU_STEPS if on_gpu else CPU_STEPS
    device = torch.device("cuda:0" if on_gpu else "cpu")
    batch = cfg.batch
    while True:
        try:
            if on_gpu:
                torch.cuda.reset_peak_memory_stats(device)
            model, elapsed, losses = train(cfg, device, batch, steps)
            break
        except RuntimeError as exc:
            # A small card: halve the batch rather than fail; the report says which batch ran.
            if not (on_gpu and is_out_of_memory(exc) and batch > 1):
                raise
            batch //= 2
            torch.cuda.empty_cache()

    params_total, params_matmul = parameter_counts(model)
    dense_per_token, attention_per_token = flops_per_token(cfg, params_matmul)
    tokens = batch * cfg.seq_len * steps[1]
    tokens_per_s = tokens / elapsed
    return ran(
        device="cuda" if on_gpu else "cpu",
        device_name=facts["devices"][0]["name"] if on_gpu else "CPU",
        config=cfg.name,
        params_total=params_total,
        params_matmul=params_matmul,
        layers=cfg.layers,
        d_model=cfg.d_model,
        heads=cfg.heads,
        kv_heads=cfg.kv_heads,
        vocab=cfg.vocab,
        seq_len=cfg.seq_len,
        batch=batch,
        warmup_steps=steps[0],
        steps=steps[1],
        dtype="bf16_autocast",
        attention_impl=model.attention_impl(),
        tokens=tokens,
        elapsed_s=elapsed,
        tokens_per_s=tokens_per_s,
        flops_per_token_dense=dense_per_token,
        flops_per_token_attention=attention_per_token,
        train_tflops=tokens_per_s * (dense_per_token + attention_per_token) / 1e12,
        loss_first=losses[0],
        loss_last=losses[-1],
        peak_memory_gib=(torch.cuda.max_memory_allocated(device) / 2**30) if on_gpu else None,
    )

"""Smoke test `torch_compile`: a small model compiled with torch.compile (inductor), its output
compared with eager mode, the compile time and the speed-up reported.

On a GPU inductor generates Triton kernels; on a CPU it generates C++ and builds it with the system
compiler. Either way a missing compiler or missing Python headers show up here, so it runs in its
own process.
"""
import time

import torch
import torch.nn as nn

from smoke_common import gpu_count, ran, torch_too_old

WIDTH, HIDDEN, ROWS = 512, 2048, 64


def precheck(facts):
    if not hasattr(torch, "compile"):
        return torch_too_old("2.0", torch.__version__)
    return None


def block():
    return nn.Sequential(nn.LayerNorm(WIDTH), nn.Linear(WIDTH, HIDDEN), nn.GELU(),
                         nn.Linear(HIDDEN, WIDTH))


def time_ms(fn, x, iterations, device):
    for _ in range(3):
        fn(x)
    sync(device)
    started = time.perf_counter()
    for _ in range(iterations):
        fn(x)
    sync(device)
    return (time.perf_counter() - started) * 1000 / iterations


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def run(facts, budget_s):
    on_gpu = gpu_count(facts) > 0
    device = torch.device("cuda:0" if on_gpu else "cpu")
    iterations = 100 if on_gpu else 20
    torch.manual_seed(0)
    model = nn.Sequential(block(), block()).to(device).eval()
    x = torch.randn(ROWS, WIDTH, device=device)

    with torch.no_grad():
        expected = model(x)
        eager_ms = time_ms(model, x, iterations, device)
        torch._dynamo.reset()
        compiled = torch.compile(model)
        started = time.perf_counter()
        out = compiled(x)  # the first call traces and compiles
        sync(device)
        compile_s = time.perf_counter() - started
        compiled_ms = time_ms(compiled, x, iterations, device)

    return ran(device=device.type, backend="inductor", compile_s=compile_s, eager_ms=eager_ms,
               compiled_ms=compiled_ms, speedup=eager_ms / compiled_ms,
               max_abs_err=float((out - expected).abs().max()),
               max_abs_output=float(expected.abs().max()))

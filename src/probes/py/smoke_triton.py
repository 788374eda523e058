"""Smoke test `triton`: a small custom kernel (smoke_triton_kernel) compiled by Triton and
checked against PyTorch. The first launch compiles it; that time is reported.

Runs in its own process: Triton compiles with the system C compiler and Python headers, and a
broken toolchain can take the interpreter down.
"""
import time

import torch

from smoke_common import dist_version, gpu_count, module_present, package_missing, ran, skip

NUMEL = 1 << 20


def precheck(facts):
    if not module_present("triton"):
        return package_missing("triton")
    if gpu_count(facts) == 0:
        return skip("no_gpu")
    return None


def run(facts, budget_s):
    from smoke_triton_kernel import swiglu

    generator = torch.Generator(device="cuda:0").manual_seed(0)
    a = torch.randn(NUMEL, device="cuda:0", generator=generator)
    b = torch.randn(NUMEL, device="cuda:0", generator=generator)
    started = time.perf_counter()
    out = swiglu(a, b)
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - started
    expected = torch.nn.functional.silu(a) * b
    return ran(triton_version=dist_version("triton") or dist_version("pytorch-triton"),
               numel=NUMEL, dtype="float32", compile_s=compile_s,
               max_abs_err=float((out - expected).abs().max()))

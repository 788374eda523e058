"""Smoke tests `vllm` and `unsloth`: libraries that only need to import here.

Each runs in its own process: importing vLLM takes seconds and sets up multiprocessing, and
Unsloth patches transformers and peft on import, which would change every test after it.
"""
import time

from smoke_common import (compute_capability, dist_version, gpu_count, module_present,
                          package_missing, ran, skip)

# Unsloth's stated minimum: NVIDIA GPUs of compute capability 7.0 (Volta) or newer.
UNSLOTH_MIN_CC = (7, 0)


def precheck_vllm(facts):
    if not module_present("vllm"):
        return package_missing("vllm")
    return None


def run_vllm(facts, budget_s):
    started = time.perf_counter()
    import vllm

    return ran(version=getattr(vllm, "__version__", None) or dist_version("vllm"),
               import_s=time.perf_counter() - started)


def precheck_unsloth(facts):
    if not module_present("unsloth"):
        return package_missing("unsloth")
    if gpu_count(facts) == 0:
        # Unsloth refuses to import without a GPU; its version is still worth reporting.
        return skip("no_gpu", version=dist_version("unsloth"))
    return None


def run_unsloth(facts, budget_s):
    started = time.perf_counter()
    import unsloth

    device = facts["devices"][0]
    return ran(version=getattr(unsloth, "__version__", None) or dist_version("unsloth"),
               import_s=time.perf_counter() - started,
               device_name=device["name"], cc=device["cc"],
               gpu_supported=compute_capability(facts) >= UNSLOTH_MIN_CC)

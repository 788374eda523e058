"""Runs single-process smoke tests one after another in this interpreter, importing torch once.

    python smoke_run.py --tests llama_train,hf_llama,lora [--defer qlora,vllm]
                        [--budgets llama_train=120,lora=60]

For each test it prints a BEGIN line, then a TEST line with the result (smoke_common's markers),
flushed at once: if the process dies in the middle, lab_check knows which test took it down and
keeps the results before it. A test named in --defer is only prechecked here (is its package
there, is there a GPU); when nothing stops it, its result is {"status": "defer"} and lab_check runs
it again alone in a fresh process, because it can crash or poison the interpreter.

Each test gets its own time budget through SIGALRM; a test stuck inside native code cannot be
interrupted that way, and lab_check's own timeout for the whole process covers it.
"""
import argparse
import importlib
import os
import signal
import time

from _labcheck import alive, stage
from smoke_common import (BEGIN_MARKER, FACTS_MARKER, TEST_MARKER, error_result, json_safe,
                          print_marker, skip, test_switch, torch_facts)

# test name -> (module, precheck function, run function, needs torch to be importable)
TESTS = {
    "llama_train": ("smoke_llama", "precheck", "run", True),
    "hf_llama": ("smoke_hf", "precheck_hf_llama", "run_hf_llama", True),
    "lora": ("smoke_hf", "precheck_lora", "run_lora", True),
    "qlora": ("smoke_qlora", "precheck", "run", True),
    "flash_attention": ("smoke_attention", "precheck", "run", True),
    "triton": ("smoke_triton", "precheck", "run", True),
    "torch_compile": ("smoke_compile", "precheck", "run", True),
    # These two look for their package first: "vLLM is in another environment" is the useful
    # answer even where torch is missing.
    "vllm": ("smoke_packages", "precheck_vllm", "run_vllm", False),
    "unsloth": ("smoke_packages", "precheck_unsloth", "run_unsloth", False),
}
DEFAULT_BUDGET_S = 60


class TestTimeout(BaseException):
    """Raised by SIGALRM; a BaseException so that a test's `except Exception` cannot swallow it."""


def on_alarm(signum, frame):
    raise TestTimeout()


def parse_budgets(text):
    budgets = {}
    for item in filter(None, (text or "").split(",")):
        name, _, seconds = item.partition("=")
        budgets[name] = float(seconds)
    return budgets


def import_torch():
    try:
        import torch
    except Exception as exc:  # ImportError, or OSError from a broken CUDA library
        return None, "%s: %s" % (type(exc).__name__, exc)
    return torch_facts(torch), None


def planted_failure(name):
    """Test-only switches: make this test hang or crash the interpreter (docs/smoke-tests.md)."""
    if test_switch("SLOW_TEST") == name:  # a hang that the per-test alarm can interrupt
        while True:
            time.sleep(1)
    if test_switch("HANG_TEST") == name:  # a hang in "native code": the alarm is blocked
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        while True:
            time.sleep(1)
    if test_switch("CRASH_TEST") == name:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file in the probe's folder
        os.kill(os.getpid(), signal.SIGSEGV)


def run_one(name, facts, torch_error, deferred, budget_s):
    if name not in TESTS:
        return {"status": "error", "failure": "unknown_test", "error": "no smoke test " + name}
    module_name, precheck_name, run_name, needs_torch = TESTS[name]
    if needs_torch and facts is None:
        return skip("no_torch", error=torch_error)
    try:
        module = importlib.import_module(module_name)
        result = getattr(module, precheck_name)(facts)
    except Exception as exc:
        return error_result(exc, stage="precheck")
    if result is not None:
        return result
    if deferred:
        return {"status": "defer"}

    signal.setitimer(signal.ITIMER_REAL, budget_s)
    try:
        planted_failure(name)
        return getattr(module, run_name)(facts, budget_s)
    except TestTimeout:
        return {"status": "error", "failure": "timeout", "stage": "run", "budget_s": budget_s,
                "error": "no result within %g s" % budget_s}
    except Exception as exc:
        return error_result(exc, stage="run")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", required=True)
    parser.add_argument("--defer", default="")
    parser.add_argument("--budgets", default="")
    args = parser.parse_args()
    tests = [name for name in args.tests.split(",") if name]
    deferred = set(filter(None, args.defer.split(",")))
    budgets = parse_budgets(args.budgets)

    # Nothing here may reach the network: the models are built from configs in memory.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    signal.signal(signal.SIGALRM, on_alarm)

    print_marker(BEGIN_MARKER, "_torch_import")
    stage("import torch")
    facts, torch_error = import_torch()
    alive()
    print_marker(FACTS_MARKER, facts if facts else {"torch_version": None,
                                                    "torch_error": torch_error})
    for name in tests:
        print_marker(BEGIN_MARKER, name)
        started = time.perf_counter()
        result = run_one(name, facts, torch_error, name in deferred,
                         budgets.get(name, DEFAULT_BUDGET_S))
        result.update(test=name, duration_s=time.perf_counter() - started)
        print_marker(TEST_MARKER, json_safe(result))

    from _labcheck import emit

    emit({"tests": tests, "torch_version": facts["torch_version"] if facts else None})


if __name__ == "__main__":
    main()

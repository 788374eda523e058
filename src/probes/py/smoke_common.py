"""Helpers shared by the smoke-test probes (smoke_*.py).

The probes report facts; the C++ side judges them (src/smoke/). A test's result is a dict with a
"status": "ran" (facts follow), "skip" (a stable "reason" code and its details) or "error" (what
failed and where). Packages are looked up without importing them: importing vllm or unsloth is
slow and patches other libraries, so only the test that needs a package imports it.

The LABCHECK_TEST_* environment variables are test-only switches that let the C++ tests plant
hangs, crashes and wrong results (docs/smoke-tests.md lists them). Nothing else reads them.
"""
import importlib.metadata
import importlib.util
import json
import math
import os
import re
import sys
import traceback

# Line markers on stdout, one line each, flushed at once so that a killed process keeps them.
BEGIN_MARKER = "LABCHECK_SMOKE_BEGIN "  # a test (or the "_torch_import" stage) starts
TEST_MARKER = "LABCHECK_SMOKE_TEST "    # a test's result: {"test": name, "status": ...}
FACTS_MARKER = "LABCHECK_SMOKE_FACTS "  # torch and GPU facts, right after importing torch

MAX_ERROR_CHARS = 4000


def json_safe(value):
    """NaN and infinities as strings: JSON has no such numbers, and a NaN loss is a finding."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return value


def print_marker(marker, payload):
    text = payload if isinstance(payload, str) else json.dumps(payload, default=str)
    # A library may have left a partial line on stdout; start ours on a fresh one.
    sys.stdout.write("\n" + marker + text + "\n")
    sys.stdout.flush()


def module_present(name):
    """True when `import name` would find something, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def dist_version(name):
    """The installed distribution's version, without importing it; None when not installed."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
    except Exception:  # a broken dist-info directory must not end the probe
        return None


def version_tuple(text):
    """"2.4.0+cu121" -> (2, 4, 0); "1.13.0a0+gitunknown" -> (1, 13, 0); None -> ()."""
    if not text:
        return ()
    parts = []
    for piece in str(text).split("+")[0].split("."):
        match = re.match(r"\d+", piece)
        if not match:
            break
        parts.append(int(match.group(0)))
    return tuple(parts)


def at_least(version_text, minimum):
    return version_tuple(version_text) >= tuple(minimum)


def skip(reason, **details):
    return {"status": "skip", "reason": reason, **details}


def package_missing(package, module=None):
    return skip("package_missing", package=package, module=module or package)


def torch_too_old(needed, have):
    return skip("torch_too_old", needed=needed, have=str(have))


def ran(**facts):
    return {"status": "ran", **facts}


def error_result(exc, stage, failure="exception"):
    """An exception as a result: its type, message, where it happened and the traceback's tail."""
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {
        "status": "error",
        "failure": failure,
        "stage": stage,
        "error_type": type(exc).__name__,
        "error": str(exc)[:MAX_ERROR_CHARS],
        "traceback": "".join(tb)[-MAX_ERROR_CHARS:],
    }


def test_switch(name):
    """The value of the test-only switch LABCHECK_TEST_<name>, or None."""
    value = os.environ.get("LABCHECK_TEST_" + name)
    return value if value else None


def die_with_parent():
    """Ask Linux to SIGKILL this process when its parent dies.

    Distributed ranks are children of PyTorch's launcher; when lab_check kills the launcher after
    a hang, the ranks must not live on holding the GPUs and the port.
    """
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except Exception:
        pass


def torch_facts(torch):
    """What the judges and the advice need to know about torch and the GPUs."""
    facts = {
        "torch_version": torch.__version__,
        "torch_cuda_version": getattr(torch.version, "cuda", None),
        "python_version": sys.version.split()[0],
        "cuda_available": False,
        "devices": [],
    }
    try:
        facts["cuda_available"] = bool(torch.cuda.is_available())
        if facts["cuda_available"]:
            for index in range(torch.cuda.device_count()):
                props = torch.cuda.get_device_properties(index)
                facts["devices"].append({
                    "index": index,
                    "name": props.name,
                    "cc": "%d.%d" % (props.major, props.minor),
                    "memory_gib": props.total_memory / 2**30,
                })
    except Exception as exc:  # a broken driver: the tests that need a GPU say so themselves
        facts["cuda_error"] = str(exc)[:MAX_ERROR_CHARS]
    return facts


def gpu_count(facts):
    return len(facts.get("devices", [])) if facts else 0


def compute_capability(facts, index=0):
    devices = facts.get("devices", []) if facts else []
    if index >= len(devices):
        return ()
    return version_tuple(devices[index]["cc"])

"""Launches the `ddp` or `fsdp2` smoke test through PyTorch's own launcher and reports one result.

    python smoke_dist_launch.py --test ddp|fsdp2 --watchdog-s 90
    python smoke_dist_launch.py --test ddp --nnodes 2 --rdzv-endpoint node01:29400   (on every node)

It calls torch.distributed.run.main() (the code behind `torchrun`) in this process, so torch is
imported once here and once per rank, with:
  - two or more GPUs: one rank per GPU over NCCL; otherwise two CPU ranks over gloo, as the course
    page says (LABCHECK_SMOKE_FORCE_CPU=1 forces that on a GPU machine);
  - a free port on 127.0.0.1 for the rendezvous;
  - a watchdog: when the ranks are not done in time it notes where each one stopped and kills
    every process below this one, so a hang becomes a FAIL that names the stuck ranks.
lab_check's own timeout on this process, a little longer than the watchdog, covers the rest; the
ranks die with their parent (smoke_common.die_with_parent).

With --nnodes N > 1 (docs/multi-node.md) the same ranks join across nodes through torchrun's c10d
rendezvous at --rdzv-endpoint (`torchrun --nnodes N --rdzv-backend c10d`), --nproc-per-node ranks
here (default: as on one node). Whichever node holds global rank 0 writes the comparison; the
others report that their ranks finished ("elsewhere": true).
"""
import argparse
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time

from _labcheck import alive, stage
from smoke_common import (at_least, dist_version, json_safe, module_present, ran, skip,
                          torch_too_old)

# The watchdog's clock starts here, before `import torch`, which can take many seconds on a busy
# machine: lab_check's timeout on this process started at about the same moment, and the watchdog
# must report before that timeout strikes.
STARTED = time.monotonic()
FSDP2_MIN_TORCH = (2, 4)
HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def descendants(root_pid):
    """Every process below root_pid, found through /proc (Linux only, as NCCL is)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue  # the process ended while we looked
    found, pending = [], [root_pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def read_json(path):
    try:
        with open(path) as stream:
            return json.load(stream)
    except (OSError, ValueError):
        return None


def rank_statuses(run_dir, world):
    """Status of ranks 0..world-1 (None: not started), plus any other rank*.json here: across
    nodes this node's ranks have global numbers that need not start at 0."""
    statuses = {rank: None for rank in range(world)}
    for name in os.listdir(run_dir):
        if name.startswith("rank") and name.endswith(".json") and name[4:-5].isdigit():
            statuses[int(name[4:-5])] = read_json(os.path.join(run_dir, name))
    return statuses


class Watchdog(threading.Thread):
    def __init__(self, seconds, run_dir, world):
        super().__init__(daemon=True)
        self.seconds, self.run_dir, self.world = seconds, run_dir, world
        self.finished = threading.Event()
        self.fired = False
        self.statuses = {}

    def run(self):
        if self.finished.wait(max(0.0, self.seconds - (time.monotonic() - STARTED))):
            return
        self.fired = True
        self.statuses = rank_statuses(self.run_dir, self.world)
        for pid in descendants(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def choose_layout(torch):
    """(backend, ranks, device, why not GPUs) for this machine."""
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if os.environ.get("LABCHECK_SMOKE_FORCE_CPU") == "1":
        return "gloo", 2, "cpu", "forced_cpu"
    if gpus >= 2:
        return "nccl", gpus, "cuda", None
    return "gloo", 2, "cpu", "one_gpu" if gpus == 1 else "no_gpu"


def precheck(test):
    if not module_present("torch"):
        return skip("no_torch", error="No module named 'torch'")
    version = dist_version("torch")
    if test == "fsdp2" and version and not at_least(version, FSDP2_MIN_TORCH):
        return torch_too_old("2.4", version)  # decided without paying for `import torch`
    return None


def failure_result(kind, **details):
    return {"status": "error", "failure": kind, **details}


def describe_failures(exc):
    """ChildFailedError's per-rank exit codes and signals, as plain data."""
    failures = []
    for rank, failure in sorted(getattr(exc, "failures", {}).items()):
        entry = {"rank": rank, "exitcode": getattr(failure, "exitcode", None)}
        try:
            entry["signal"] = failure.signal_name()
        except Exception:
            pass
        failures.append(entry)
    return failures


def launch(test, watchdog_s, nodes=None):
    stage("import torch")
    import torch
    import torch.distributed as dist
    from torch.distributed import run as torchrun

    alive()

    if not dist.is_available():
        return skip("no_distributed", have=torch.__version__)
    backend, world, device, cpu_because = choose_layout(torch)
    if nodes and nodes.nproc_per_node:
        world = nodes.nproc_per_node
    if backend == "nccl" and not dist.is_nccl_available():
        return failure_result("no_nccl", error="this PyTorch build has no NCCL")

    run_dir = tempfile.mkdtemp(prefix="labcheck-dist-")
    os.environ.update(LABCHECK_DIST_DIR=run_dir, LABCHECK_DIST_TEST=test,
                      LABCHECK_DIST_DEVICE=device, LABCHECK_DIST_BACKEND=backend,
                      LABCHECK_DIST_TIMEOUT_S=str(watchdog_s + 60))
    port = free_port()
    if nodes and nodes.nnodes > 1:
        # Underscore spellings: torch 1.13 knows no others.
        where = ["--nnodes=%d" % nodes.nnodes, "--rdzv_backend=c10d",
                 "--rdzv_endpoint=" + nodes.rdzv_endpoint, "--rdzv_id=" + nodes.rdzv_id]
    else:
        where = ["--nnodes=1", "--master_addr=127.0.0.1", "--master_port=%d" % port]
    argv = where + ["--nproc_per_node=%d" % world, "--max_restarts=0", "--monitor_interval=0.1",
            # Ranks' stderr to a log file and to ours. Not the default "0": torch 1.13 on
            # Python 3.11 cannot parse it (its Std flag's zero member is not iterable there),
            # which breaks every plain `torchrun` with Debian's python3-torch 1.13.
            "--redirects=2", "--tee=2", "--log_dir=" + os.path.join(run_dir, "logs"),
            os.path.join(HERE, "smoke_dist_worker.py")]
    layout = dict(backend=backend, world_size=world * (nodes.nnodes if nodes else 1), device=device,
                  cpu_because=cpu_because, nnodes=nodes.nnodes if nodes else 1, local_ranks=world,
                  torch=torch.__version__, port=port, launcher="torch.distributed.run",
                  watchdog_s=watchdog_s)
    watchdog = Watchdog(watchdog_s, run_dir, world if layout["nnodes"] == 1 else 0)
    watchdog.start()
    started = time.perf_counter()
    launch_error = None
    try:
        torchrun.main(argv)
    except BaseException as exc:  # ChildFailedError, or SystemExit from its argument parser
        launch_error = exc
    watchdog.finished.set()
    layout["wall_s"] = time.perf_counter() - started
    try:
        return judge_run(watchdog, launch_error, run_dir, world, layout)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def gloo_lacks_a_collective(layout, errors):
    """FSDP2 shards with reduce-scatter and all-gather into one tensor, which older gloo builds
    lack. On a CPU that is a limit of this torch, not a fault of the machine: the message, or None.
    """
    if layout["device"] != "cpu" or os.environ.get("LABCHECK_DIST_TEST") != "fsdp2":
        return None
    for error in errors.values():
        text = str(error.get("error", "")).lower()
        if "gloo" in text and any(s in text for s in ("no support", "not support", "unsupported")):
            return error.get("error")
    return None


def judge_run(watchdog, launch_error, run_dir, world, layout):
    if watchdog.fired:
        stages = {str(r): (s or {}).get("stage", "not started") for r, s in watchdog.statuses.items()}
        stuck = [r for r, s in watchdog.statuses.items() if not s or s.get("stage") != "done"]
        return failure_result("hang", stuck_ranks=stuck, stages=stages,
                              error="ranks %s not done after %g s" % (stuck, layout["watchdog_s"]),
                              **layout)
    statuses = rank_statuses(run_dir, world if layout.get("nnodes", 1) == 1 else 0)
    if launch_error is not None:
        errors = {str(r): {k: s[k] for k in ("failed_stage", "error_type", "error", "traceback")
                           if k in s}
                  for r, s in statuses.items() if s and s.get("stage") == "error"}
        unsupported = gloo_lacks_a_collective(layout, errors)
        if unsupported:
            return skip("fsdp2_cpu_unsupported", error=unsupported, have=layout.get("torch"))
        stages = {str(r): (s or {}).get("stage", "not started") for r, s in statuses.items()}
        return failure_result("rank_failed", ranks=describe_failures(launch_error),
                              rank_errors=errors, stages=stages,
                              error="%s: %s" % (type(launch_error).__name__, launch_error),
                              **layout)
    result = read_json(os.path.join(run_dir, "result.json"))
    if result is None and layout.get("nnodes", 1) > 1:
        # Rank 0 ran on another node: its launcher reports the comparison.
        if statuses and all(s and s.get("stage") == "done" for s in statuses.values()):
            return ran(elsewhere=True, local_global_ranks=sorted(statuses), **layout)
    if result is None:
        return failure_result("no_result", error="the ranks ended without rank 0's result",
                              **layout)
    layout.update(result)
    return ran(**layout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--test", choices=["ddp", "fsdp2"], required=True)
    parser.add_argument("--watchdog-s", type=float, default=120)
    parser.add_argument("--nnodes", type=int, default=1)
    parser.add_argument("--rdzv-endpoint", default="")
    parser.add_argument("--rdzv-id", default="lab_check")
    parser.add_argument("--nproc-per-node", type=int, default=0)
    args = parser.parse_args()
    result = precheck(args.test)
    if result is None:
        result = launch(args.test, args.watchdog_s, args)
    result["test"] = args.test
    sys.stdout.flush()
    from _labcheck import emit

    emit(json_safe(result))


if __name__ == "__main__":
    main()

"""One rank of the `ddp` / `fsdp2` smoke tests, started by PyTorch's launcher (smoke_dist_launch).

Every rank trains the same small model on its slice of a global batch for a few steps, wrapped
in DistributedDataParallel or FSDP2's fully_shard. Then all ranks' parameters are gathered on
rank 0, which trains the same model in one process on the whole batch and reports the largest
difference. The C++ side judges it against its tolerance.

Each rank keeps a status file (LABCHECK_DIST_DIR/rank<N>.json) with the stage it is in, so that
the launcher's watchdog can say where a hung rank stopped.
"""
import datetime
import json
import os
import signal
import time
import traceback

from smoke_common import MAX_ERROR_CHARS, die_with_parent, test_switch

STEPS = 5
ROWS_PER_RANK = 4
IN_FEATURES, HIDDEN, OUT_FEATURES = 16, 32, 4
LEARNING_RATE = 0.1

RANK = int(os.environ.get("RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
RUN_DIR = os.environ.get("LABCHECK_DIST_DIR", ".")


def write_json(path, payload):
    temporary = path + ".tmp"
    with open(temporary, "w") as stream:
        json.dump(payload, stream)
    os.replace(temporary, path)  # the watchdog never reads half a file


LAST_STAGE = ["starting"]


def status(stage, **extra):
    if stage != "error":
        LAST_STAGE[0] = stage
    write_json(os.path.join(RUN_DIR, "rank%d.json" % RANK),
               {"rank": RANK, "pid": os.getpid(), "stage": stage, "time": time.time(), **extra})


def make_model(torch, device):
    torch.manual_seed(0)  # every rank and the reference start from the same weights
    nn = torch.nn
    return nn.Sequential(
        nn.Sequential(nn.Linear(IN_FEATURES, HIDDEN), nn.Tanh()),
        nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.Tanh()),
        nn.Linear(HIDDEN, OUT_FEATURES),
    ).to(device)


def make_data(torch, device):
    generator = torch.Generator().manual_seed(1)
    rows = ROWS_PER_RANK * WORLD
    inputs = torch.randn(STEPS, rows, IN_FEATURES, generator=generator)
    targets = torch.randn(STEPS, rows, OUT_FEATURES, generator=generator)
    return inputs.to(device), targets.to(device)


def wrap(torch, model, test, device):
    if test == "ddp":
        from torch.nn.parallel import DistributedDataParallel

        device_ids = [device.index] if device.type == "cuda" else None
        return DistributedDataParallel(model, device_ids=device_ids)
    try:
        from torch.distributed.fsdp import fully_shard  # torch >= 2.6
    except ImportError:
        from torch.distributed._composable.fsdp import fully_shard  # torch 2.4, 2.5
    from torch.distributed.device_mesh import init_device_mesh

    mesh = init_device_mesh(device.type, (WORLD,))
    for block in model:
        fully_shard(block, mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model


def planted_failure(step):
    """Test-only switches (docs/smoke-tests.md): this rank hangs or crashes at the first step."""
    if step != 0:
        return
    if test_switch("HANG_RANK") == str(RANK):
        status("hanging on purpose (LABCHECK_TEST_HANG_RANK)")
        while True:
            time.sleep(1)
    if test_switch("CRASH_RANK") == str(RANK):
        import resource

        status("crashing on purpose (LABCHECK_TEST_CRASH_RANK)")
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.kill(os.getpid(), signal.SIGSEGV)


def train(torch, model, inputs, targets, rows, stage_prefix=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    losses = []
    for step in range(STEPS):
        if stage_prefix:
            status("%s step %d of %d (forward, backward, gradient exchange)"
                   % (stage_prefix, step + 1, STEPS))
            planted_failure(step)
        loss = torch.nn.functional.mse_loss(model(inputs[step, rows]), targets[step, rows])
        # Test-only: the last rank's gradients come out 1.5 times too large, as if data had been
        # corrupted on the way; the result must then differ from the one-process run.
        if stage_prefix and test_switch("PERTURB") == "1" and RANK == WORLD - 1:
            loss = loss * 1.5
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(float(loss))
    return losses


def flat_parameters(torch, model):
    pieces = []
    for parameter in model.parameters():
        full = parameter.full_tensor() if hasattr(parameter, "full_tensor") else parameter
        pieces.append(full.detach().reshape(-1))
    return torch.cat(pieces)


def main():
    die_with_parent()
    test = os.environ["LABCHECK_DIST_TEST"]
    status("importing torch")
    import torch
    import torch.distributed as dist

    device = torch.device("cpu")
    if os.environ.get("LABCHECK_DIST_DEVICE") == "cuda":
        device = torch.device("cuda", LOCAL_RANK)
        torch.cuda.set_device(device)
        # TF32 would make the two runs differ by more than rounding.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    status("init_process_group")
    timeout = datetime.timedelta(seconds=float(os.environ.get("LABCHECK_DIST_TIMEOUT_S", "300")))
    dist.init_process_group(os.environ["LABCHECK_DIST_BACKEND"], timeout=timeout)
    inputs, targets = make_data(torch, device)
    model = wrap(torch, make_model(torch, device), test, device)
    mine = slice(RANK * ROWS_PER_RANK, (RANK + 1) * ROWS_PER_RANK)
    started = time.perf_counter()
    losses = train(torch, model, inputs, targets, mine, stage_prefix=test)
    elapsed = time.perf_counter() - started

    status("gathering parameters")
    vector = flat_parameters(torch, model)
    gathered = [torch.empty_like(vector) for _ in range(WORLD)]
    dist.all_gather(gathered, vector)
    if RANK == 0:
        status("training the one-process reference")
        reference = make_model(torch, device)
        train(torch, reference, inputs, targets, slice(None))
        expected = flat_parameters(torch, reference)
        write_json(os.path.join(RUN_DIR, "result.json"), {
            "test": test,
            "world_size": WORLD,
            "backend": dist.get_backend(),
            "device": device.type,
            "steps": STEPS,
            "global_batch": ROWS_PER_RANK * WORLD,
            "param_count": int(vector.numel()),
            "max_abs_diff": max(float((g - expected).abs().max()) for g in gathered),
            "cross_rank_max_diff": max(float((g - gathered[0]).abs().max()) for g in gathered),
            "max_abs_param": float(expected.abs().max()),
            "loss_first": losses[0],
            "loss_last": losses[-1],
            "train_s": elapsed,
        })
    dist.destroy_process_group()
    status("done")


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:
        status("error", failed_stage=LAST_STAGE[0], error_type=type(exc).__name__, error=str(exc)[:MAX_ERROR_CHARS],
               traceback=traceback.format_exc()[-MAX_ERROR_CHARS:])
        raise

#!/usr/bin/env python3
"""Measure the peak GPU memory of real training steps, next to lab_check's prediction.

For each case (model x method) this builds the model from the catalog's published config
(data/models/<id>.json) with random weights in memory -- nothing is downloaded -- runs a few
optimizer steps on random tokens and prints one JSON line:

  {"model": "qwen3-0.6b", "method": "lora", "seq": 1024, "batch": 1, ...,
   "max_memory_allocated_bytes": ..., "predicted_peak_allocated_bytes": ..., "error_percent": ...}

The settings mirror what `lab_check vram` assumes (docs/calculators.md): weights in BF16,
torch.optim.AdamW(foreach=True) on BF16 parameters for full fine-tuning, PEFT LoRA on all linear
layers with FP32 adapters, NF4 with double quantisation for QLoRA, SDPA attention,
zero_grad(set_to_none=True). QLoRA cases are skipped (with a JSON line saying why) when
bitsandbytes is missing.

With --snapshot-dir DIR it also writes, per case, the allocator's memory snapshot after the last
step (torch.cuda.memory._snapshot(): every segment with its size, stream, pool and what is
allocated in it, frames left out) with the run's max_memory_reserved and max_memory_allocated, to
DIR/<model>-<method>-<seq>.json, and with --lab-check sets lab_check's replay of the same step
against it (`lab_check vram ... --compare-snapshot FILE`, issue 55): the record then carries
"snapshot_comparison".

Usage: python3 scripts/device/measure_vram_peak.py [--lab-check build/lab_check]
           [--models qwen3-0.6b,qwen3-1.7b,llama-3.1-8b] [--methods full,lora,qlora]
           [--seq 1024] [--batch 1] [--checkpointing] [--steps 3] [--snapshot-dir DIR]
"""
import argparse
import gc
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def emit(record):
    print(json.dumps(record, sort_keys=True), flush=True)


def load_config(model_id):
    with open(os.path.join(REPO, "data", "models", model_id + ".json"), encoding="utf-8") as f:
        entry = json.load(f)
    from transformers import AutoConfig
    cfg = dict(entry["config"])
    if "text_config" in cfg:  # multimodal catalog entries: measure the language model
        cfg = dict(cfg["text_config"])
    model_type = cfg.pop("model_type")
    for key in ("architectures", "torch_dtype"):
        cfg.pop(key, None)
    return AutoConfig.for_model(model_type, **cfg)


def quantize_linear_layers(model, torch):
    """Swap every nn.Linear inside the decoder for a bitsandbytes NF4 layer (double quantisation)."""
    import bitsandbytes as bnb
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if not isinstance(child, torch.nn.Linear) or "lm_head" in f"{name}.{child_name}":
                continue
            q = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                  compute_dtype=torch.bfloat16, compress_statistics=True, quant_type="nf4")
            q.weight = bnb.nn.Params4bit(child.weight.data, requires_grad=False, compress_statistics=True,
                                         quant_type="nf4")
            if child.bias is not None:
                q.bias = torch.nn.Parameter(child.bias.data, requires_grad=False)
            setattr(module, child_name, q)


def measure(model_id, method, args):
    import torch
    from transformers import AutoModelForCausalLM
    record = {"model": model_id, "method": method, "seq": args.seq, "batch": args.batch,
              "checkpointing": args.checkpointing, "optimizer": "adamw", "lora_rank": args.lora_rank,
              "torch": torch.__version__}
    if method == "qlora":
        try:
            import bitsandbytes  # noqa: F401
        except Exception as error:  # missing or built for another CUDA
            record.update(skipped=f"bitsandbytes unavailable: {error}")
            return record
    config = load_config(model_id)
    torch.manual_seed(0)
    if method == "qlora":
        model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16, attn_implementation="sdpa")
        quantize_linear_layers(model, torch)
    else:
        with torch.device("cuda"):
            model = AutoModelForCausalLM.from_config(config, torch_dtype=torch.bfloat16, attn_implementation="sdpa")
    model = model.cuda()
    if args.checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if method in ("lora", "qlora"):
        from peft import LoraConfig, get_peft_model
        model = get_peft_model(model, LoraConfig(r=args.lora_rank, lora_alpha=2 * args.lora_rank, lora_dropout=0.0,
                                                 target_modules="all-linear"))
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=1e-5, foreach=True)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    vocab = config.vocab_size
    for _ in range(args.steps):
        ids = torch.randint(0, vocab, (args.batch, args.seq), device="cuda")
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    record.update(max_memory_allocated_bytes=torch.cuda.max_memory_allocated(),
                  max_memory_reserved_bytes=torch.cuda.max_memory_reserved(),
                  device_used_bytes=total - free, device=torch.cuda.get_device_name(0))
    if args.snapshot_dir:
        record["snapshot"] = write_snapshot(record, torch, args)
    del model, optimizer, params
    gc.collect()
    torch.cuda.empty_cache()
    return record


def write_snapshot(record, torch, args):
    """The allocator's segments after the last step, without the stack frames, and the run's peaks."""
    segments = []
    for seg in torch.cuda.memory._snapshot()["segments"]:
        segments.append({key: seg.get(key) for key in ("address", "total_size", "allocated_size", "active_size",
                                                        "requested_size", "stream", "segment_type", "is_expandable")})
        segments[-1]["blocks"] = [{"size": b["size"], "requested_size": b.get("requested_size"), "state": b["state"]}
                                  for b in seg.get("blocks", [])]
    os.makedirs(args.snapshot_dir, exist_ok=True)
    path = os.path.join(args.snapshot_dir, f"{record['model']}-{record['method']}-{args.seq}.json")
    snapshot = {"model": record["model"], "method": record["method"], "seq": args.seq, "batch": args.batch,
                "steps": args.steps, "torch": record["torch"], "device": record["device"],
                "lab_check_args": vram_args(record, args),
                "max_memory_reserved_bytes": record["max_memory_reserved_bytes"],
                "max_memory_allocated_bytes": record["max_memory_allocated_bytes"], "segments": segments}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(snapshot, f)
    return path


def vram_args(record, args):
    """The lab_check vram command that states this case's settings."""
    command = ["vram", record["model"], "--method", record["method"], "--seq", str(args.seq),
               "--batch", str(args.batch), "--lora-rank", str(args.lora_rank)]
    # Say it both ways: lab_check turns checkpointing on by default for QLoRA (as PEFT does).
    command.append("--checkpointing" if args.checkpointing else "--no-checkpointing")
    return command


def predict(record, args):
    if not args.lab_check or "skipped" in record:
        return
    command = [args.lab_check] + vram_args(record, args) + ["--json"]
    if "snapshot" in record:
        command += ["--compare-snapshot", record["snapshot"]]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    memory = json.loads(out)["memory"]
    predicted = memory["peak_allocated"]["bytes"]
    record["predicted_peak_allocated_bytes"] = predicted
    record["error_percent"] = round((predicted / record["max_memory_allocated_bytes"] - 1) * 100, 1)
    replay = memory.get("replay", {})
    if replay.get("modelled"):
        record["predicted_peak_reserved_bytes"] = replay["reserved_peak"]["bytes"]
        record["reserved_error_percent"] = round((replay["reserved_peak"]["bytes"] / record["max_memory_reserved_bytes"] - 1) * 100, 1)
    if "snapshot_comparison" in replay:
        record["snapshot_comparison"] = replay["snapshot_comparison"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="qwen3-0.6b,qwen3-1.7b,llama-3.1-8b")
    parser.add_argument("--methods", default="full,lora,qlora")
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument("--checkpointing", action="store_true")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--lab-check", default="", help="path of the lab_check binary to add its prediction")
    parser.add_argument("--snapshot-dir", default="", help="write the allocator's memory snapshot of each case here")
    args = parser.parse_args()
    try:
        import torch
        if not torch.cuda.is_available():
            emit({"skipped": "no CUDA device"})
            return 0
    except ImportError as error:
        emit({"skipped": f"PyTorch unavailable: {error}"})
        return 0
    for model_id in args.models.split(","):
        for method in args.methods.split(","):
            try:
                record = measure(model_id, method, args)
                predict(record, args)
            except torch.cuda.OutOfMemoryError as error:
                record = {"model": model_id, "method": method, "error": f"out of memory: {error}"[:300]}
                torch.cuda.empty_cache()
            except Exception as error:  # one failed case must not hide the others
                record = {"model": model_id, "method": method, "error": repr(error)[:300]}
            emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())

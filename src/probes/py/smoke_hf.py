"""Smoke tests `hf_llama` and `lora`: the Hugging Face stack the course's LLM lessons use.

A randomly initialised LlamaForCausalLM is built from a config in memory: nothing is downloaded
(the runner sets HF_HUB_OFFLINE=1 as well). `lora` wraps it with peft and checks that only the
adapter weights learn.
"""
import torch

from smoke_common import dist_version, gpu_count, module_present, package_missing, ran

# Small enough for a CPU, shaped like the real thing: grouped-query attention, SwiGLU, RoPE.
TINY_LLAMA = dict(vocab_size=1024, hidden_size=256, intermediate_size=688, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)
BATCH, SEQ = 2, 64


def device_of(facts):
    return torch.device("cuda:0" if gpu_count(facts) > 0 else "cpu")


def build_llama(device):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    return LlamaForCausalLM(LlamaConfig(**TINY_LLAMA)).to(device)


def batch_on(device):
    generator = torch.Generator().manual_seed(1)
    tokens = torch.randint(TINY_LLAMA["vocab_size"], (BATCH, SEQ), generator=generator)
    return tokens.to(device)


def precheck_hf_llama(facts):
    if not module_present("transformers"):
        return package_missing("transformers")
    return None


def run_hf_llama(facts, budget_s):
    device = device_of(facts)
    model = build_llama(device)
    tokens = batch_on(device)
    loss = model(input_ids=tokens, labels=tokens).loss
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    return ran(
        transformers_version=dist_version("transformers"),
        device=device.type,
        params=sum(p.numel() for p in model.parameters()),
        loss=float(loss),
        tensors_with_grad=len(grads),
        grads_finite=all(bool(torch.isfinite(g).all()) for g in grads),
    )


def precheck_lora(facts):
    for package in ("transformers", "peft"):
        if not module_present(package):
            return package_missing(package)
    return None


def is_adapter(name):
    return "lora_" in name


def run_lora(facts, budget_s):
    from peft import LoraConfig, get_peft_model

    device = device_of(facts)
    config = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, bias="none",
                        target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    model = get_peft_model(build_llama(device), config)
    named = list(model.named_parameters())
    before = {name: p.detach().clone() for name, p in named}
    optimizer = torch.optim.AdamW([p for _, p in named if p.requires_grad], lr=1e-2)

    tokens = batch_on(device)
    loss = model(input_ids=tokens, labels=tokens).loss
    loss.backward()
    adapter = [(n, p) for n, p in named if is_adapter(n)]
    base = [(n, p) for n, p in named if not is_adapter(n)]
    facts_out = dict(
        peft_version=dist_version("peft"),
        device=device.type,
        loss=float(loss),
        adapter_tensors=len(adapter),
        adapter_tensors_with_grad=sum(1 for _, p in adapter if p.grad is not None),
        base_tensors=len(base),
        base_tensors_trainable=sum(1 for _, p in base if p.requires_grad),
        base_tensors_with_grad=sum(1 for _, p in base if p.grad is not None),
        trainable_params=sum(p.numel() for _, p in named if p.requires_grad),
        total_params=sum(p.numel() for _, p in named),
    )
    optimizer.step()
    # LoRA's B matrices start at zero, so A's first gradient is zero too; B's is not, so the
    # adapter as a whole must move while the base must not move at all.
    facts_out["adapter_max_change"] = max_change(adapter, before)
    facts_out["base_max_change"] = max_change(base, before)
    return ran(**facts_out)


def max_change(named_params, before):
    changes = [float((p.detach() - before[n]).abs().max()) for n, p in named_params if p.numel()]
    return max(changes, default=0.0)

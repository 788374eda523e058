"""Smoke test `qlora`: a 4-bit load with bitsandbytes (NF4, double quantisation, BF16 compute)
and one QLoRA training step on it.

The model is a random Llama saved to a private temporary folder and loaded back from there, so the
real from_pretrained path runs without downloading anything. It runs in its own process: a
bitsandbytes built for another CUDA or torch can crash the interpreter.
"""
import tempfile

import torch

from smoke_common import dist_version, gpu_count, module_present, package_missing, ran, skip

# ~62M parameters: big enough for the 4-bit saving to show, small enough to load in a second.
QLORA_LLAMA = dict(vocab_size=8192, hidden_size=1024, intermediate_size=2816, num_hidden_layers=4,
                   num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=512)
BATCH, SEQ = 2, 128


def precheck(facts):
    for package in ("transformers", "peft", "accelerate", "bitsandbytes"):
        if not module_present(package):
            return package_missing(package)
    if gpu_count(facts) == 0:
        return skip("no_gpu")
    if not torch.cuda.is_bf16_supported():
        return skip("bf16_unsupported", device_name=facts["devices"][0]["name"],
                    cc=facts["devices"][0]["cc"])
    return None


def mib(num_bytes):
    return num_bytes / 2**20


def load(folder, **kwargs):
    from transformers import LlamaForCausalLM

    return LlamaForCausalLM.from_pretrained(folder, torch_dtype=torch.bfloat16,
                                            device_map={"": 0}, **kwargs)


def run(facts, budget_s):
    import bitsandbytes as bnb
    from peft import LoraConfig, get_peft_model
    from transformers import BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM

    with tempfile.TemporaryDirectory(prefix="labcheck-qlora-") as folder:
        torch.manual_seed(0)
        LlamaForCausalLM(LlamaConfig(**QLORA_LLAMA)).to(torch.bfloat16).save_pretrained(folder)

        bf16_model = load(folder)
        bf16_bytes = bf16_model.get_memory_footprint()
        params = sum(p.numel() for p in bf16_model.parameters())
        del bf16_model
        torch.cuda.empty_cache()

        quantization = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                          bnb_4bit_use_double_quant=True,
                                          bnb_4bit_compute_dtype=torch.bfloat16)
        model = load(folder, quantization_config=quantization)
        nf4_bytes = model.get_memory_footprint()
        linear4bit = sum(1 for m in model.modules() if isinstance(m, bnb.nn.Linear4bit))

    lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, bias="none", task_type="CAUSAL_LM",
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
    model = get_peft_model(model, lora)
    named = list(model.named_parameters())
    optimizer = torch.optim.AdamW([p for _, p in named if p.requires_grad], lr=1e-3)
    tokens = torch.randint(QLORA_LLAMA["vocab_size"], (BATCH, SEQ), device="cuda:0")
    loss = model(input_ids=tokens, labels=tokens).loss
    loss.backward()
    optimizer.step()

    adapter = [p for n, p in named if "lora_" in n]
    base = [p for n, p in named if "lora_" not in n]
    return ran(
        bitsandbytes_version=dist_version("bitsandbytes"),
        transformers_version=dist_version("transformers"),
        peft_version=dist_version("peft"),
        quant_type="nf4",
        double_quant=True,
        compute_dtype="bfloat16",
        params=params,
        bf16_model_mib=mib(bf16_bytes),
        nf4_model_mib=mib(nf4_bytes),
        linear4bit_layers=linear4bit,
        loss=float(loss),
        adapter_tensors=len(adapter),
        adapter_tensors_with_grad=sum(1 for p in adapter if p.grad is not None),
        base_tensors_with_grad=sum(1 for p in base if p.grad is not None),
    )

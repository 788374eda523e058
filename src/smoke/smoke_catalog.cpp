#include "smoke/smoke_catalog.h"

namespace labcheck::smoke {

// Budgets: generous multiples of what a slow machine needs, so that only a real hang reaches
// them. The distributed ones include two or more `import torch` and the launcher's start-up.
const std::vector<SmokeTest>& SmokeTests() {
  static const std::vector<SmokeTest> tests = {
      {"ddp", "smoke.ddp", T("DDP: обучение на всех картах = в одном процессе",
                             "DDP: training on all devices = one process"),
       Launch::Torchrun, 180},
      {"fsdp2", "smoke.fsdp2", T("FSDP2 (fully_shard): обучение на всех картах = в одном процессе",
                                 "FSDP2 (fully_shard): training on all devices = one process"),
       Launch::Torchrun, 180},
      {"llama_train", "smoke.llama_train", T("Обучение Llama ~170M в BF16: токены/с и TFLOPS",
                                             "Llama ~170M training in BF16: tokens/s and TFLOPS"),
       Launch::Shared, 240},
      {"hf_llama", "smoke.hf_llama", T("transformers: LlamaForCausalLM, прямой и обратный проход",
                                       "transformers: LlamaForCausalLM forward and backward"),
       Launch::Shared, 120},
      {"lora", "smoke.lora", T("LoRA (peft): учатся только адаптеры", "LoRA (peft): only the adapters learn"),
       Launch::Shared, 120},
      {"qlora", "smoke.qlora", T("4-битная загрузка (NF4) и шаг QLoRA", "4-bit load (NF4) and a QLoRA step"),
       Launch::Isolated, 240},
      {"flash_attention", "smoke.flash_attention", T("FlashAttention: flash_attn и SDPA", "FlashAttention: flash_attn and SDPA"),
       Launch::Isolated, 120},
      {"triton", "smoke.triton", T("Triton: своё ядро", "Triton: a custom kernel"), Launch::Isolated, 180},
      {"torch_compile", "smoke.torch_compile", T("torch.compile: результат и ускорение", "torch.compile: result and speed-up"),
       Launch::Isolated, 300},
      {"vllm", "smoke.vllm", T("vLLM: импорт", "vLLM: import"), Launch::Isolated, 180},
      {"unsloth", "smoke.unsloth", T("Unsloth: импорт и поддержка GPU", "Unsloth: import and GPU support"),
       Launch::Isolated, 180},
  };
  return tests;
}

const SmokeTest* FindSmokeTest(const std::string& name) {
  for (const auto& test : SmokeTests()) {
    if (test.name == name) return &test;
  }
  return nullptr;
}

}  // namespace labcheck::smoke

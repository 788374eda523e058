// The smoke tests of the PyTorch stack as checks of the lab check (section "smoke"): ids
// smoke.ddp, smoke.fsdp2, smoke.llama_train, smoke.hf_llama, smoke.lora, smoke.qlora,
// smoke.flash_attention, smoke.triton, smoke.torch_compile, smoke.vllm, smoke.unsloth.
// All are FullOnly (SKIP under --quick); ddp and fsdp2 are distributed (SKIP under --skip-dist).
#pragma once
#include <memory>

#include "runner/check.h"
#include "smoke/smoke_session.h"

namespace labcheck {

void RegisterSmokeChecks(Registry& registry);

namespace smoke {
// The same, sharing a given session: tests hand in one that plants failures through its env.
void RegisterSmokeChecks(Registry& registry, std::shared_ptr<SmokeSession> session);
}  // namespace smoke

}  // namespace labcheck

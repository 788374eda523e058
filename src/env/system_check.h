// env.system: the machine under the course (OS, CPU, RAM, disks, /dev/shm) and what in it deserves
// attention before stage 4. Assessment is a pure function of the facts, so tests feed it any machine.
#pragma once
#include <cstdint>

#include "core/check_result.h"
#include "env/system_facts.h"

namespace labcheck::env {

// Below this /dev/shm size NCCL and PyTorch DataLoader workers fail with "No space left on device"
// or bus errors; Docker's default is 64 MiB.
inline constexpr uint64_t kMinShmBytes = uint64_t{1} << 30;
// One 7–14B model in BF16 is 14–28 GB (the lab page's table); a few of them need ~50 GB.
inline constexpr uint64_t kMinHfCacheFreeBytes = 50'000'000'000;

CheckResult AssessSystem(const SystemFacts& facts);

}  // namespace labcheck::env

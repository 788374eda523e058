// The CPU section: host memory bandwidth (cpu.memory_bandwidth) and FP32 matrix multiply
// (cpu.matmul). They stand in for the GPU figures on a machine without one and show on every
// machine how fast data preparation and CPU offload can be.
#pragma once
#include "runner/check.h"

namespace labcheck {

void RegisterCpuChecks(Registry& registry);

}  // namespace labcheck

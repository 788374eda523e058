// The GPU part of lab_check: registers, in report order, gpu.inventory, gpu.health, gpu.matmul,
// gpu.memory_bandwidth, gpu.host_device_copy, gpu.p2p and interconnect.allreduce (distributed:
// --skip-dist skips it), and the child jobs they and the GPU commands run. The order is the list
// in gpu_checks.cpp; each check is its spec (checks/gpu_check_spec.h, docs/gpu-checks.md).
#pragma once
#include "runner/check.h"

namespace labcheck {

void RegisterGpuChecks(Registry& registry);

// The child jobs alone, for `lab_check internal-child`: it must know them before it dispatches,
// whether or not the checks were registered in that process. Idempotent.
void RegisterGpuChildJobs();

}  // namespace labcheck

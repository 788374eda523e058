// How far the fabric manager got registering the GPUs of an NVSwitch system, from NVML's fabric
// state (nvmlDeviceGetGpuFabricInfo, nvml_health_api.h): read when cuInit says 802, so that a board
// still registering at boot is told apart from one whose fabric manager is not running.
#pragma once
#include "gpu/nvidia/cuda_driver.h"
#include "gpu/nvidia/nvml_library.h"

namespace labcheck::gpu::health {

// Over every GPU NVML lists: any still in progress → InProgress; else any completed with an error
// status → Failed; else any not started → NotStarted; Unknown where NVML lacks the call, the
// driver does not support it (pre-Hopper, no NVSwitch) or every GPU says "not supported".
FabricRegistration ReadFabricRegistration(const Nvml& nvml);

}  // namespace labcheck::gpu::health

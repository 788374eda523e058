// The driver's own verdict on a card (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION through
// nvmlDeviceGetFieldValues, in the public nvml.h from NVML 12.8, the R570 driver's): none, reset the
// GPU, reboot the node, drain peer-to-peer traffic, drain and reset, or (CUDA 13.3's nvml.h) recover
// the IMEX domain. It needs no history, so it catches the card that took
// its XID while nobody watched; DCGM's level-1 diagnostic checks it (nvvs Software.cpp,
// checkGpuRecoveryState). A driver without the field answers {"na"}: never a failure.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "gpu/nvidia/nvml_health_api.h"

namespace labcheck::gpu::health {

// "none", "gpu_reset", "node_reboot", "drain_p2p", "drain_and_reset", "recover_imex_domain",
// "unknown_<n>", or {"na": why}.
nlohmann::json ReadRecoveryAction(const nvml::NvmlHealthApi& h, nvml::nvmlDevice_t device);

// The key for the enum's value ("gpu_reset" for 1).
std::string RecoveryActionKey(unsigned value);

// What a person does about it: "the driver asks for a GPU reset". Empty for "none".
Text RecoveryActionText(const std::string& key);

}  // namespace labcheck::gpu::health

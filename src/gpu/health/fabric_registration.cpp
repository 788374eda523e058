#include "gpu/health/fabric_registration.h"

#include "gpu/nvidia/nvml_health_library.h"

namespace labcheck::gpu::health {

FabricRegistration ReadFabricRegistration(const Nvml& nvml) {
  Result<std::unique_ptr<NvmlHealth>> bound = NvmlHealth::Bind(nvml);
  if (!bound.ok() || (*bound)->api().nvmlDeviceGetGpuFabricInfo == nullptr) return FabricRegistration::Unknown;
  const nvml::NvmlApi& base = nvml.api();
  unsigned count = 0;
  if (base.nvmlDeviceGetCount == nullptr || base.nvmlDeviceGetHandleByIndex == nullptr ||
      base.nvmlDeviceGetCount(&count) != nvml::kSuccess)
    return FabricRegistration::Unknown;
  bool in_progress = false, failed = false, not_started = false;
  for (unsigned i = 0; i < count; ++i) {
    nvml::nvmlDevice_t device = nullptr;
    nvml::nvmlGpuFabricInfo_t info{};
    if (base.nvmlDeviceGetHandleByIndex(i, &device) != nvml::kSuccess ||
        (*bound)->api().nvmlDeviceGetGpuFabricInfo(device, &info) != nvml::kSuccess)
      continue;
    in_progress |= info.state == nvml::kGpuFabricStateInProgress;
    not_started |= info.state == nvml::kGpuFabricStateNotStarted;
    // nvml.h: the status "must be checked only if state returns complete".
    failed |= info.state == nvml::kGpuFabricStateCompleted && info.status != nvml::kSuccess;
  }
  if (in_progress) return FabricRegistration::InProgress;
  if (failed) return FabricRegistration::Failed;
  if (not_started) return FabricRegistration::NotStarted;
  return FabricRegistration::Unknown;
}

}  // namespace labcheck::gpu::health

#include "gpu/nvidia/nvml_health_library.h"

namespace labcheck::gpu {

Result<std::unique_ptr<NvmlHealth>> NvmlHealth::Bind(const Nvml& nvml) {
  Result<DynamicLibrary> library = DynamicLibrary::Open(nvml.file());
  if (!library.ok()) return library.status();
  std::unique_ptr<NvmlHealth> health(new NvmlHealth());
  health->library_ = std::move(library).value();
  nvml::NvmlHealthApi& a = health->api_;
  Status bound = BindSymbols(health->library_, {
      Optional(a.nvmlDeviceGetTotalEccErrors, {"nvmlDeviceGetTotalEccErrors"}),
      Optional(a.nvmlDeviceGetMemoryErrorCounter, {"nvmlDeviceGetMemoryErrorCounter"}),
      Optional(a.nvmlDeviceGetRetiredPages, {"nvmlDeviceGetRetiredPages"}),
      Optional(a.nvmlDeviceGetRetiredPagesPendingStatus, {"nvmlDeviceGetRetiredPagesPendingStatus"}),
      Optional(a.nvmlDeviceGetRemappedRows, {"nvmlDeviceGetRemappedRows"}),
      Optional(a.nvmlEventSetCreate, {"nvmlEventSetCreate"}),
      Optional(a.nvmlDeviceRegisterEvents, {"nvmlDeviceRegisterEvents"}),
      // _v2 fills gpuInstanceId/computeInstanceId on MIG; the fields we read are the same in both.
      Optional(a.nvmlEventSetWait, {"nvmlEventSetWait_v2", "nvmlEventSetWait"}),
      Optional(a.nvmlEventSetFree, {"nvmlEventSetFree"}),
      Optional(a.nvmlDeviceGetPcieReplayCounter, {"nvmlDeviceGetPcieReplayCounter"}),
      Optional(a.nvmlDeviceGetPowerManagementDefaultLimit, {"nvmlDeviceGetPowerManagementDefaultLimit"}),
      Optional(a.nvmlDeviceGetComputeMode, {"nvmlDeviceGetComputeMode"}),
      Optional(a.nvmlDeviceGetMigMode, {"nvmlDeviceGetMigMode"}),
      // _v2 has the same 24-byte record; the unversioned one has the older 16-byte one: not bound.
      Optional(a.nvmlDeviceGetComputeRunningProcesses,
               {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"}),
      Optional(a.nvmlDeviceGetTemperatureThreshold, {"nvmlDeviceGetTemperatureThreshold"}),
      Optional(a.nvmlDeviceGetFanSpeed, {"nvmlDeviceGetFanSpeed"}),
      Optional(a.nvmlDeviceGetFieldValues, {"nvmlDeviceGetFieldValues"}),
      Optional(a.nvmlDeviceGetNvLinkErrorCounter, {"nvmlDeviceGetNvLinkErrorCounter"}),
      Optional(a.nvmlDeviceGetGpuFabricInfo, {"nvmlDeviceGetGpuFabricInfo"}),
  });
  if (!bound.ok()) return bound;
  return health;
}

}  // namespace labcheck::gpu

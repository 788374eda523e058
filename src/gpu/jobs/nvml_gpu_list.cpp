#include "gpu/jobs/nvml_gpu_list.h"

namespace labcheck::gpu {

nlohmann::json NvmlGpuList(const Nvml& nvml) {
  const nvml::NvmlApi& api = nvml.api();
  unsigned count = 0;
  if (api.nvmlDeviceGetCount == nullptr || api.nvmlDeviceGetCount(&count) != nvml::kSuccess) return nullptr;
  nlohmann::json gpus = nlohmann::json::array();
  for (unsigned i = 0; i < count; ++i) {
    nlohmann::json gpu = {{"index", i}, {"name", nullptr}, {"pci_bus_id", nullptr}};
    nvml::nvmlDevice_t device = nullptr;
    if (api.nvmlDeviceGetHandleByIndex != nullptr && api.nvmlDeviceGetHandleByIndex(i, &device) == nvml::kSuccess) {
      char name[256] = {};
      if (api.nvmlDeviceGetName != nullptr && api.nvmlDeviceGetName(device, name, sizeof name) == nvml::kSuccess)
        gpu["name"] = std::string(name);
      nvml::nvmlPciInfo_t pci{};
      if (api.nvmlDeviceGetPciInfo != nullptr && api.nvmlDeviceGetPciInfo(device, &pci) == nvml::kSuccess)
        gpu["pci_bus_id"] = CanonicalPciBusId(pci.busId);
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

nlohmann::json NvmlView(const LibrarySearchPaths& paths) {
  nlohmann::json view = {{"nvml_gpus", nullptr}, {"driver_version", nullptr}};
  Result<std::unique_ptr<Nvml>> nvml = Nvml::Load(paths);
  if (!nvml.ok()) return view;
  view["nvml_gpus"] = NvmlGpuList(**nvml);
  const std::string version = (*nvml)->DriverVersion();
  if (!version.empty()) view["driver_version"] = version;
  KeepUntilExit(std::shared_ptr<void>(std::move(nvml).value()));
  return view;
}

}  // namespace labcheck::gpu

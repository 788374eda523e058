#include "gpu/nvidia/nvml_library.h"

#include <cstdio>
#include <optional>

#include <fmt/format.h>

namespace labcheck::gpu {

std::vector<SymbolBinding> NvmlSymbols(nvml::NvmlApi& a) {
  return {
      Required(a.nvmlInit, {"nvmlInit_v2", "nvmlInit"}),
      Required(a.nvmlShutdown, {"nvmlShutdown"}),
      Optional(a.nvmlErrorString, {"nvmlErrorString"}),
      Optional(a.nvmlSystemGetDriverVersion, {"nvmlSystemGetDriverVersion"}),
      Required(a.nvmlDeviceGetCount, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}),
      Required(a.nvmlDeviceGetHandleByIndex, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}),
      Required(a.nvmlDeviceGetHandleByPciBusId,
               {"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"}),
      Optional(a.nvmlDeviceGetName, {"nvmlDeviceGetName"}),
      Optional(a.nvmlDeviceGetPciInfo, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"}),
      Optional(a.nvmlDeviceGetCurrPcieLinkGeneration, {"nvmlDeviceGetCurrPcieLinkGeneration"}),
      Optional(a.nvmlDeviceGetCurrPcieLinkWidth, {"nvmlDeviceGetCurrPcieLinkWidth"}),
      Optional(a.nvmlDeviceGetMaxPcieLinkGeneration, {"nvmlDeviceGetMaxPcieLinkGeneration"}),
      Optional(a.nvmlDeviceGetMaxPcieLinkWidth, {"nvmlDeviceGetMaxPcieLinkWidth"}),
      Optional(a.nvmlDeviceGetEnforcedPowerLimit, {"nvmlDeviceGetEnforcedPowerLimit"}),
      Optional(a.nvmlDeviceGetSerial, {"nvmlDeviceGetSerial"}),
      // NVML 12.6 added the versioned call and deprecated the old one; old drivers have only it.
      Optional(a.nvmlDeviceGetTemperatureV, {"nvmlDeviceGetTemperatureV"}),
      Optional(a.nvmlDeviceGetTemperature, {"nvmlDeviceGetTemperature"}),
      Optional(a.nvmlDeviceGetEccMode, {"nvmlDeviceGetEccMode"}),
      Optional(a.nvmlDeviceGetPersistenceMode, {"nvmlDeviceGetPersistenceMode"}),
      Optional(a.nvmlDeviceGetTopologyCommonAncestor, {"nvmlDeviceGetTopologyCommonAncestor"}),
      Optional(a.nvmlDeviceGetNvLinkState, {"nvmlDeviceGetNvLinkState"}),
      Optional(a.nvmlDeviceGetNvLinkRemotePciInfo,
               {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"}),
      Optional(a.nvmlDeviceGetNvLinkRemoteDeviceType, {"nvmlDeviceGetNvLinkRemoteDeviceType"}),
      Optional(a.nvmlDeviceGetP2PStatus, {"nvmlDeviceGetP2PStatus"}),
      // Renamed in NVML 12.2; drivers keep the old name as an alias, older drivers only have it.
      Optional(a.nvmlDeviceGetCurrentClocksEventReasons,
               {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}),
      Optional(a.nvmlDeviceGetClockInfo, {"nvmlDeviceGetClockInfo"}),
      Optional(a.nvmlDeviceGetPowerUsage, {"nvmlDeviceGetPowerUsage"}),
      Optional(a.nvmlDeviceGetCpuAffinity, {"nvmlDeviceGetCpuAffinity"}),
  };
}

namespace {

// NVML's names for the results that decide the search (nvml.h). Ours, not nvmlErrorString's:
// the toolkit's stub answers that with a multi-line warning banner.
std::string NvmlResultName(nvml::nvmlReturn_t result) {
  switch (result) {
    case nvml::kErrorDriverNotLoaded: return fmt::format("NVML_ERROR_DRIVER_NOT_LOADED ({})", result);
    case nvml::kErrorLibRmVersionMismatch: return fmt::format("NVML_ERROR_LIB_RM_VERSION_MISMATCH ({})", result);
    case nvml::kErrorNoPermission: return fmt::format("NVML_ERROR_NO_PERMISSION ({})", result);
    default: return fmt::format("nvmlReturn {}", result);
  }
}

}  // namespace

Text RefusedNvmlReason(const std::string& file, nvml::nvmlReturn_t result) {
  const std::string error = "nvmlInit_v2: " + NvmlResultName(result);
  if (result == nvml::kErrorDriverNotLoaded && file.find("/stubs/") != std::string::npos)
    return T("заглушка NVML из CUDA Toolkit (" + error + "), пропущена", "CUDA toolkit NVML stub (" + error + "), skipped");
  switch (result) {
    case nvml::kErrorDriverNotLoaded:
      // The toolkit's stub answers exactly this (UCX tells the two apart the same way:
      // openucx/ucx src/uct/cuda/base/cuda_iface.h, "nvml is a stub library"); so does a real
      // NVML while no NVIDIA kernel module is loaded, and then no other copy does better.
      return T("заглушка NVML или драйвер NVIDIA не загружен (" + error + "), пропущена",
               "an NVML stub, or no NVIDIA kernel driver loaded (" + error + "), skipped");
    case nvml::kErrorLibRmVersionMismatch:
      return T("версия не совпадает с модулем ядра NVIDIA (" + error + "), пропущена",
               "its version does not match the NVIDIA kernel module (" + error + "), skipped");
    default:
      return T("не инициализировалась (" + error + "), пропущена", "did not initialise (" + error + "), skipped");
  }
}

Result<std::unique_ptr<Nvml>> Nvml::Load(const LibrarySearchPaths& paths, std::vector<NvmlInitAnswer>* answers) {
  LibrarySpec spec{"NVML", {"libnvidia-ml.so.1", "libnvidia-ml.so"}, /*driver_library=*/true};
  std::unique_ptr<Nvml> nvml(new Nvml());
  // nvmlInit is part of choosing the file, as cuInit is for libcuda (cuda_driver.h): a stub or a
  // copy from another driver version is closed and the next one tried. Without NVML the checks
  // still run, with fewer fields, so every failure to initialise moves the search on.
  LibrarySearchResult found = SearchLibrary(spec, paths, [&](const DynamicLibrary& library) -> std::optional<Text> {
    nvml::NvmlApi api;
    Status bound = BindSymbols(library, NvmlSymbols(api));
    if (!bound.ok()) return T("нет нужных функций (" + bound.message() + "), пропущена",
                              "lacks functions we need (" + bound.message() + "), skipped");
    const nvml::nvmlReturn_t init = api.nvmlInit();
    if (answers != nullptr) answers->push_back({library.file(), init});
    if (init != nvml::kSuccess) return RefusedNvmlReason(library.file(), init);
    nvml->api_ = api;  // the table of the library that stays open
    return std::nullopt;
  });
  if (!found.loaded) return found.error;
  nvml->loaded_ = std::move(*found.loaded);
  nvml->initialised_ = true;
  return nvml;
}

std::unique_ptr<Nvml> Nvml::FromApi(const nvml::NvmlApi& api) {
  std::unique_ptr<Nvml> nvml(new Nvml());
  nvml->api_ = api;
  return nvml;
}

Nvml::~Nvml() {
  if (initialised_) api_.nvmlShutdown();
}

std::string Nvml::Describe(nvml::nvmlReturn_t result) const {
  const char* text = api_.nvmlErrorString != nullptr ? api_.nvmlErrorString(result) : nullptr;
  return text != nullptr ? fmt::format("{} ({})", text, result) : fmt::format("nvmlReturn {}", result);
}

std::string Nvml::DriverVersion() const {
  char buffer[nvml::kSystemDriverVersionBufferSize] = {};
  if (api_.nvmlSystemGetDriverVersion == nullptr ||
      api_.nvmlSystemGetDriverVersion(buffer, sizeof buffer) != nvml::kSuccess) {
    return "";
  }
  return buffer;
}

nvml::nvmlDevice_t Nvml::DeviceByPciBusId(const std::string& bus_id) const {
  nvml::nvmlDevice_t device = nullptr;
  if (api_.nvmlDeviceGetHandleByPciBusId(bus_id.c_str(), &device) != nvml::kSuccess) return nullptr;
  return device;
}

std::optional<unsigned> ReadGpuTemperature(const nvml::NvmlApi& api, nvml::nvmlDevice_t device) {
  if (api.nvmlDeviceGetTemperatureV != nullptr) {
    nvml::nvmlTemperature_t reading{nvml::kTemperatureV1, nvml::kTemperatureGpu, 0};
    if (api.nvmlDeviceGetTemperatureV(device, &reading) == nvml::kSuccess && reading.temperature >= 0)
      return static_cast<unsigned>(reading.temperature);
  }
  unsigned celsius = 0;
  if (api.nvmlDeviceGetTemperature != nullptr &&
      api.nvmlDeviceGetTemperature(device, nvml::kTemperatureGpu, &celsius) == nvml::kSuccess)
    return celsius;
  return std::nullopt;
}

std::vector<std::string> ClockEventReasonNames(unsigned long long reasons) {
  struct Named {
    unsigned long long bit;
    const char* name;
  };
  static constexpr Named kNames[] = {
      {nvml::kClockEventSwPowerCap, "power_cap"},
      {nvml::kClockEventHwSlowdown, "hw_slowdown"},
      {nvml::kClockEventSwThermalSlowdown, "thermal"},
      {nvml::kClockEventHwThermalSlowdown, "hw_thermal"},
      {nvml::kClockEventHwPowerBrakeSlowdown, "hw_power_brake"},
      {nvml::kClockEventApplicationsClocksSetting, "applications_clocks"},
      {nvml::kClockEventSyncBoost, "sync_boost"},
      {nvml::kClockEventDisplayClockSetting, "display_clocks"},
  };
  std::vector<std::string> names;
  for (const Named& named : kNames)
    if ((reasons & named.bit) != 0) names.emplace_back(named.name);
  return names;
}

std::string CanonicalPciBusId(const std::string& bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char tail = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) == 4) {
    return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
  }
  if (std::sscanf(bus_id.c_str(), "%x:%x.%x%c", &bus, &device, &function, &tail) == 3) {
    return fmt::format("0000:{:02x}:{:02x}.{:x}", bus, device, function);
  }
  return "";
}

}  // namespace labcheck::gpu

#include "gpu/nvidia/nvml_library.h"

#include <cstdio>

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

Result<std::unique_ptr<Nvml>> Nvml::Load(const LibrarySearchPaths& paths) {
  LibrarySpec spec{"NVML", {"libnvidia-ml.so.1", "libnvidia-ml.so"}, /*driver_library=*/true};
  std::unique_ptr<Nvml> nvml(new Nvml());
  Result<LoadedLibrary> loaded = LoadFirst(spec, paths, [&](const DynamicLibrary& library) {
    return BindSymbols(library, NvmlSymbols(nvml->api_));
  });
  if (!loaded.ok()) return loaded.status();
  nvml->loaded_ = std::move(loaded).value();
  Status bound = BindSymbols(nvml->loaded_.library, NvmlSymbols(nvml->api_));
  if (!bound.ok()) return bound;
  nvml::nvmlReturn_t init = nvml->api_.nvmlInit();
  if (init != nvml::kSuccess) return Status::Error("nvmlInit failed: " + nvml->Describe(init));
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

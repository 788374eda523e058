// NVML loaded at run time, initialised once, shut down with the object. nvmlInit is part of choosing
// the file: the toolkit's stub (nvmlInit_v2 → NVML_ERROR_DRIVER_NOT_LOADED) or a copy from another
// driver version (NVML_ERROR_LIB_RM_VERSION_MISMATCH) is skipped and the search goes on.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/nvidia/nvml_api.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

// What one libnvidia-ml's nvmlInit_v2 answered during the search: the driver's state as NVML sees
// it (9: no kernel module, 18: the module is another version; driver_state.h reads them).
struct NvmlInitAnswer {
  std::string file;  // as the loader mapped it
  nvml::nvmlReturn_t result = nvml::kSuccess;
};

class Nvml {
 public:
  // `answers`, when given, receives every nvmlInit result of the search, in its order.
  static Result<std::unique_ptr<Nvml>> Load(const LibrarySearchPaths& paths, std::vector<NvmlInitAnswer>* answers = nullptr);
  // A table filled by someone else (in-process fakes in tests): not initialised, not shut down.
  static std::unique_ptr<Nvml> FromApi(const nvml::NvmlApi& api);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  const nvml::NvmlApi& api() const { return api_; }
  const std::string& file() const { return loaded_.file; }
  LibraryOrigin origin() const { return loaded_.origin; }
  // The libnvidia-ml files refused before this one, with the reason.
  const std::vector<SkippedLibrary>& skipped() const { return loaded_.skipped; }
  std::string DriverVersion() const;  // "570.124.06", empty when unknown
  std::string Describe(nvml::nvmlReturn_t result) const;

  // The handle for a CUDA PCI bus id ("0000:3B:00.0"); null when NVML does not know it.
  nvml::nvmlDevice_t DeviceByPciBusId(const std::string& bus_id) const;

 private:
  Nvml() = default;
  LoadedLibrary loaded_;
  nvml::NvmlApi api_;
  bool initialised_ = false;
};

// Why a libnvidia-ml whose nvmlInit returned `result` was passed over (names the toolkit's stub
// when the file sits in a stubs/ folder).
Text RefusedNvmlReason(const std::string& file, nvml::nvmlReturn_t result);

// The symbol table Load binds, newest name first (tests check every name against NVIDIA's libraries).
std::vector<SymbolBinding> NvmlSymbols(nvml::NvmlApi& api);

// The GPU's temperature, °C: nvmlDeviceGetTemperatureV where the driver has it, else the
// deprecated nvmlDeviceGetTemperature; nullopt when neither answers.
std::optional<unsigned> ReadGpuTemperature(const nvml::NvmlApi& api, nvml::nvmlDevice_t device);

// Clock event reasons as names ("power_cap", "thermal", "hw_slowdown"…), ignoring "idle" and the
// other bits that say nothing about a slow benchmark.
std::vector<std::string> ClockEventReasonNames(unsigned long long reasons);

// Bus ids differ in spelling between CUDA ("0000:3b:00.0") and NVML ("00000000:3B:00.0"):
// the canonical form is "0000:3b:00.0"; empty when the text is not a bus id.
std::string CanonicalPciBusId(const std::string& bus_id);

}  // namespace labcheck::gpu

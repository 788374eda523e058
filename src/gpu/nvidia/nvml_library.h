// NVML loaded at run time, initialised once, shut down with the object.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/nvidia/nvml_api.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

class Nvml {
 public:
  static Result<std::unique_ptr<Nvml>> Load(const LibrarySearchPaths& paths);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  const nvml::NvmlApi& api() const { return api_; }
  const std::string& file() const { return loaded_.file; }
  LibraryOrigin origin() const { return loaded_.origin; }
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

// Clock event reasons as names ("power_cap", "thermal", "hw_slowdown"…), ignoring "idle" and the
// other bits that say nothing about a slow benchmark.
std::vector<std::string> ClockEventReasonNames(unsigned long long reasons);

// Bus ids differ in spelling between CUDA ("0000:3b:00.0") and NVML ("00000000:3B:00.0"):
// the canonical form is "0000:3b:00.0"; empty when the text is not a bus id.
std::string CanonicalPciBusId(const std::string& bus_id);

}  // namespace labcheck::gpu

// The health part of NVML (nvml_health_api.h), bound from the file the Nvml object already opened
// (dlopen of the same path returns the same mapping). Every symbol is optional.
#pragma once
#include <memory>

#include "core/status.h"
#include "platform/dynamic_library.h"
#include "gpu/nvidia/nvml_health_api.h"
#include "gpu/nvidia/nvml_library.h"

namespace labcheck::gpu {

class NvmlHealth {
 public:
  static Result<std::unique_ptr<NvmlHealth>> Bind(const Nvml& nvml);
  const nvml::NvmlHealthApi& api() const { return api_; }

 private:
  NvmlHealth() = default;
  DynamicLibrary library_;
  nvml::NvmlHealthApi api_;
};

}  // namespace labcheck::gpu

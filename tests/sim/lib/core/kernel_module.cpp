#include "core/kernel_module.h"

namespace nvsim {

KernelModule KernelModuleState(const Machine& m) {
  if (!m.Flag("kernel_module/loaded")) return KernelModule::NotLoaded;
  const json* version = m.At("kernel_module/version");
  if (version != nullptr && version->is_string() && version->get<std::string>() != m.String("driver_version"))
    return KernelModule::OtherVersion;
  return KernelModule::Matches;
}

}  // namespace nvsim

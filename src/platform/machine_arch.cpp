#include "platform/machine_arch.h"

namespace labcheck {

#if defined(__aarch64__)
const char* MultiarchTriplet() { return "aarch64-linux-gnu"; }
std::vector<std::string> CudaTargetNames() { return {"sbsa-linux", "aarch64-linux"}; }
#elif defined(__x86_64__)
const char* MultiarchTriplet() { return "x86_64-linux-gnu"; }
std::vector<std::string> CudaTargetNames() { return {"x86_64-linux"}; }
#else
#error "lab_check is built for x86-64 and arm64 (docs/install.md, "Platforms")"
#endif

}  // namespace labcheck

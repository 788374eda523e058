// The build facts a real libnccl.so.2 carries: NCCL keeps "NCCL version X.Y.Z+cudaA.B" in .rodata
// (src/init.cc VERSION_STRING, "so that running strings on the lib can quickly reveal the
// version") and statically links the CUDA runtime of that version, so on a driver of an older CUDA
// major its ncclCommInit fails ("CUDA driver version is insufficient for CUDA runtime version",
// returned as ncclUnhandledCudaError). The sim is built twice: build/sim-nvidia/libnccl.so.2 for
// CUDA 12.9 (runs on every profile, 12.0 and 13.0 drivers alike) and
// build/sim-nvidia-cu13/libnccl.so.2 for CUDA 13.0.
#include <cstdio>

#include "nccl/nccl_internal.h"

#ifndef SIM_NCCL_CUDA
#define SIM_NCCL_CUDA "12.9"
#endif

namespace ncclsim {

// What `strings libnccl.so.2 | grep "NCCL version"` finds; our loader reads it the same way.
extern const char kVersionString[];
__attribute__((used)) const char kVersionString[] = "NCCL version 2.27.7+cuda" SIM_NCCL_CUDA;

const char* BuiltForCuda() { return SIM_NCCL_CUDA; }

bool DriverRunsBuild() {
  int built = 0, driver = 0;
  std::sscanf(SIM_NCCL_CUDA, "%d", &built);
  std::sscanf(nvsim::Profile().String("cuda_driver_version").c_str(), "%d", &driver);
  return driver >= built;
}

}  // namespace ncclsim

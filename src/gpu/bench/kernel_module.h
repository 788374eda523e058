// A PTX module loaded into the current context through the driver (cuModuleLoadDataEx: the
// driver's JIT compiles it for this GPU), its kernels, and their launch. Unloaded with the object.
// Needs the four optional driver entry points of cuda_api.h; KernelsUnavailable says which is
// missing, so a caller can report its figure as N/A instead of failing.
#pragma once
#include <optional>
#include <string>

#include "core/status.h"
#include "gpu/nvidia/cuda_driver.h"

namespace labcheck::gpu {

// Why this driver cannot load and launch kernels ("the driver has no cuLaunchKernel"), or nullopt.
std::optional<std::string> KernelsUnavailable(const CudaDriver& driver);

struct LaunchShape {
  unsigned blocks = 0;
  unsigned threads_per_block = 0;
};

class KernelModule {
 public:
  // JIT-compiles `ptx` (NUL-terminated) in the current context. The error carries the JIT's log.
  static Result<KernelModule> Load(const CudaDriver& driver, const char* ptx);
  KernelModule() = default;
  KernelModule(KernelModule&& other) noexcept { *this = std::move(other); }
  KernelModule& operator=(KernelModule&& other) noexcept;
  ~KernelModule();

  Result<cuda::CUfunction> Function(const char* name) const;
  // Enqueues `function` on `stream` with a 1-D grid; `params` as cuLaunchKernel wants them, an
  // array of pointers to each parameter's value, in the kernel's order.
  Status Launch(cuda::CUfunction function, LaunchShape shape, cuda::CUstream stream, void** params) const;

 private:
  const CudaDriver* driver_ = nullptr;
  cuda::CUmodule module_ = nullptr;
};

}  // namespace labcheck::gpu

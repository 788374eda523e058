// cuBLASLt loaded at run time: libcublasLt.so.13, .12 or .11 from the search paths, skipping one
// built for a newer CUDA than the driver runs (it would load, then fail in every call).
#pragma once
#include <memory>
#include <string>

#include "core/status.h"
#include "gpu/nvidia/cublaslt_api.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

class CublasLt {
 public:
  // driver_cuda_version: cuDriverGetVersion's value (12080), 0 when unknown (accept any).
  static Result<std::unique_ptr<CublasLt>> Load(const LibrarySearchPaths& paths, int driver_cuda_version);

  const cublaslt::CublasLtApi& api() const { return api_; }
  const std::string& file() const { return loaded_.file; }
  LibraryOrigin origin() const { return loaded_.origin; }
  std::string VersionText() const;  // "13.1.0"
  std::string Describe(cublaslt::cublasStatus_t status) const;

 private:
  CublasLt() = default;
  LoadedLibrary loaded_;
  cublaslt::CublasLtApi api_;
};

// cuBLAS encodes versions as major*10000 + minor*100 + patch (cublas_api.h: CUBLAS_VERSION).
std::string CublasVersionText(size_t version);
// Whether a library built against CUDA `library_cudart` runs on a driver of `driver_cuda`: the same
// major or older suffices (CUDA's minor-version compatibility).
bool DriverRunsLibrary(int driver_cuda, int library_cudart);

}  // namespace labcheck::gpu

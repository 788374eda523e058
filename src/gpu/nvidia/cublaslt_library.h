// cuBLASLt loaded at run time: libcublasLt.so.13, .12 or .11 from the search paths, skipping one
// built for a newer CUDA than the driver runs (it would load, then fail in every call) and one
// without kernels for the oldest GPU's compute capability (CUDA 13 dropped Maxwell, Pascal and
// Volta: its cuBLASLt answers CUBLAS_STATUS_ARCH_MISMATCH there, so a V100 needs cuBLASLt 12).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/nvidia/cublaslt_api.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

// A cuBLASLt that loaded and would run on the driver but was passed over because it has no
// kernels for a GPU of this machine (for the libraries table).
struct CublasLtPassedOver {
  std::string file;
  int library_major = 0;           // 13
  int compute_capability = 0;      // the oldest GPU's, major*10 + minor: 70
  int min_compute_capability = 0;  // the oldest that library runs on: 75
};

class CublasLt {
 public:
  // driver_cuda_version: cuDriverGetVersion's value (12080), 0 when unknown (accept any).
  // oldest_compute_capability: the lowest of the GPUs (major*10 + minor), 0 when unknown (any).
  // One cuBLASLt serves every GPU of the process, so it must run on the oldest of them.
  static Result<std::unique_ptr<CublasLt>> Load(const LibrarySearchPaths& paths, int driver_cuda_version,
                                                int oldest_compute_capability = 0);
  // A table filled by someone else (in-process fakes in tests).
  static std::unique_ptr<CublasLt> FromApi(const cublaslt::CublasLtApi& api);

  const cublaslt::CublasLtApi& api() const { return api_; }
  const std::string& file() const { return loaded_.file; }
  LibraryOrigin origin() const { return loaded_.origin; }
  std::string VersionText() const;  // "13.1.0"
  std::string Describe(cublaslt::cublasStatus_t status) const;
  // Newer libraries found first and refused for the GPUs' compute capability.
  const std::vector<CublasLtPassedOver>& passed_over() const { return passed_over_; }

 private:
  CublasLt() = default;
  LoadedLibrary loaded_;
  std::vector<CublasLtPassedOver> passed_over_;
  cublaslt::CublasLtApi api_;
};

// The symbol table Load binds (tests check every name against NVIDIA's libraries).
std::vector<SymbolBinding> CublasLtSymbols(cublaslt::CublasLtApi& api);

// cuBLAS encodes versions as major*10000 + minor*100 + patch (cublas_api.h: CUBLAS_VERSION).
std::string CublasVersionText(size_t version);
// Whether a library built against CUDA `library_cudart` runs on a driver of `driver_cuda`: the same
// major or older suffices (CUDA's minor-version compatibility).
bool DriverRunsLibrary(int driver_cuda, int library_cudart);
// The lowest compute capability (major*10 + minor) cuBLASLt of that major has kernels for: 13 →
// 7.5 (CUDA 13.0 release notes, "Deprecated Architectures": Maxwell, Pascal, Volta removed),
// 12 → 5.0 (CUDA 12 dropped Kepler), 11 → 3.5; 0 for a major we do not know (accept).
int CublasLtMinComputeCapability(int library_major);

}  // namespace labcheck::gpu

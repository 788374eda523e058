#include "gpu/nvidia/cublaslt_library.h"

#include <fmt/format.h>

#include "gpu/nvidia/cuda_driver.h"

namespace labcheck::gpu {

std::vector<SymbolBinding> CublasLtSymbols(cublaslt::CublasLtApi& a) {
  return {
      Required(a.cublasLtCreate, {"cublasLtCreate"}),
      Required(a.cublasLtDestroy, {"cublasLtDestroy"}),
      Required(a.cublasLtGetVersion, {"cublasLtGetVersion"}),
      Required(a.cublasLtGetCudartVersion, {"cublasLtGetCudartVersion"}),
      Optional(a.cublasLtGetStatusName, {"cublasLtGetStatusName"}),
      Required(a.cublasLtMatmulDescCreate, {"cublasLtMatmulDescCreate"}),
      Required(a.cublasLtMatmulDescDestroy, {"cublasLtMatmulDescDestroy"}),
      Required(a.cublasLtMatmulDescSetAttribute, {"cublasLtMatmulDescSetAttribute"}),
      Required(a.cublasLtMatrixLayoutCreate, {"cublasLtMatrixLayoutCreate"}),
      Required(a.cublasLtMatrixLayoutDestroy, {"cublasLtMatrixLayoutDestroy"}),
      Required(a.cublasLtMatmulPreferenceCreate, {"cublasLtMatmulPreferenceCreate"}),
      Required(a.cublasLtMatmulPreferenceDestroy, {"cublasLtMatmulPreferenceDestroy"}),
      Required(a.cublasLtMatmulPreferenceSetAttribute, {"cublasLtMatmulPreferenceSetAttribute"}),
      Required(a.cublasLtMatmulAlgoGetHeuristic, {"cublasLtMatmulAlgoGetHeuristic"}),
      Required(a.cublasLtMatmul, {"cublasLtMatmul"}),
  };
}

std::string CublasVersionText(size_t version) {
  return fmt::format("{}.{}.{}", version / 10000, (version % 10000) / 100, version % 100);
}

bool DriverRunsLibrary(int driver_cuda, int library_cudart) {
  if (driver_cuda <= 0 || library_cudart <= 0) return true;
  return driver_cuda / 1000 >= library_cudart / 1000;
}

int CublasLtMinComputeCapability(int library_major) {
  switch (library_major) {
    case 11: return 35;
    case 12: return 50;
    case 13: return 75;
    default: return library_major > 13 ? 75 : 0;  // a later major drops more, never less: at least 13's floor
  }
}

Result<std::unique_ptr<CublasLt>> CublasLt::Load(const LibrarySearchPaths& paths, int driver_cuda_version,
                                                 int oldest_compute_capability) {
  LibrarySpec spec{"cuBLASLt", {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"}, false};
  std::unique_ptr<CublasLt> lt(new CublasLt());
  Result<LoadedLibrary> loaded = LoadFirst(spec, paths, [&](const DynamicLibrary& library) -> Status {
    Status bound = BindSymbols(library, CublasLtSymbols(lt->api_));
    if (!bound.ok()) return bound;
    int built_for = static_cast<int>(lt->api_.cublasLtGetCudartVersion());
    if (!DriverRunsLibrary(driver_cuda_version, built_for)) {
      return Status::Error(fmt::format("built for CUDA {}, the driver supports CUDA {}",
                                       CudaVersionText(built_for), CudaVersionText(driver_cuda_version)));
    }
    // A cuBLASLt without kernels for the card loads and binds, then fails in cublasLtCreate
    // (CUBLAS_STATUS_ARCH_MISMATCH): refuse it here so that the search goes on to an older one.
    const int major = static_cast<int>(lt->api_.cublasLtGetVersion() / 10000);
    const int needs = CublasLtMinComputeCapability(major);
    if (oldest_compute_capability > 0 && oldest_compute_capability < needs) {
      lt->passed_over_.push_back({library.file(), major, oldest_compute_capability, needs});
      return Status::Error(fmt::format("cuBLASLt {} has no kernels for compute capability {}.{} (it needs {}.{} or newer)",
                                       major, oldest_compute_capability / 10, oldest_compute_capability % 10,
                                       needs / 10, needs % 10));
    }
    return Status::Ok();
  });
  if (!loaded.ok()) return loaded.status();
  lt->loaded_ = std::move(loaded).value();
  Status bound = BindSymbols(lt->loaded_.library, CublasLtSymbols(lt->api_));
  if (!bound.ok()) return bound;
  return lt;
}

std::unique_ptr<CublasLt> CublasLt::FromApi(const cublaslt::CublasLtApi& api) {
  std::unique_ptr<CublasLt> lt(new CublasLt());
  lt->api_ = api;
  return lt;
}

std::string CublasLt::VersionText() const { return CublasVersionText(api_.cublasLtGetVersion()); }

std::string CublasLt::Describe(cublaslt::cublasStatus_t status) const {
  const char* name = api_.cublasLtGetStatusName != nullptr ? api_.cublasLtGetStatusName(status) : nullptr;
  return name != nullptr ? fmt::format("{} ({})", name, status) : fmt::format("cublasStatus {}", status);
}

}  // namespace labcheck::gpu

// The CUDA driver, loaded at run time: finding libcuda.so.1, binding its entry points, cuInit and
// turning what cuInit says into SKIP or FAIL with the reason a user can act on.
#pragma once
#include <memory>
#include <string>

#include "core/status.h"
#include "core/text.h"
#include "gpu/nvidia/cuda_api.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

// What a failed cuInit (or load) means for a check.
enum class DriverVerdict { Ready, Skip, Fail };

struct DriverProblem {
  DriverVerdict verdict = DriverVerdict::Ready;
  Text reason;
  Text hint;
  std::string error;  // "CUDA_ERROR_STUB_LIBRARY (34)" and the like
};

// Maps cuInit's result to a verdict: the stub library and "no device" are SKIPs (nothing to
// measure, nothing broken); a driver mismatch is a FAIL with the seed's hint.
DriverProblem ClassifyInitResult(cuda::CUresult result, const std::string& error_name);

class CudaDriver {
 public:
  // Loads libcuda and runs cuInit(0). Never crashes on a missing library or symbol; the error
  // explains, and `problem` tells SKIP from FAIL.
  static std::unique_ptr<CudaDriver> Load(const LibrarySearchPaths& paths, DriverProblem* problem);

  const cuda::CudaDriverApi& api() const { return api_; }
  const std::string& file() const { return loaded_.file; }
  LibraryOrigin origin() const { return loaded_.origin; }
  int version() const { return version_; }  // 12080 for CUDA 12.8
  std::string VersionText() const;          // "12.8"
  // The machine profile when this libcuda is the test simulator (tests/sim), else "".
  std::string SimulatedMachine() const;

  // "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", or just the number when the driver cannot name it.
  std::string Describe(cuda::CUresult result) const;
  // Ok, or an error naming the call that failed: Check(api().cuMemAlloc(...), "cuMemAlloc").
  Status Check(cuda::CUresult result, const char* what) const;

 private:
  LoadedLibrary loaded_;
  cuda::CudaDriverApi api_;
  int version_ = 0;
};

std::string CudaVersionText(int version);  // 12080 -> "12.8"

}  // namespace labcheck::gpu

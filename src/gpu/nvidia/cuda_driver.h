// The CUDA driver, loaded at run time: finding libcuda.so.1, binding its entry points, cuInit and
// turning what cuInit says into SKIP or FAIL with the reason a user can act on.
//
// cuInit is part of choosing the library: a candidate whose cuInit says the file itself is wrong
// (the toolkit's stub, 34; a libcuda that does not match the kernel module, 803, or this GPU, 804;
// one older than asked for, 35) is closed and the search goes on to the next libcuda. Any other
// result describes the machine (no GPU, fabric manager down…): that library is kept and its result
// is the verdict. cuInit runs once per library file: the one kept is never initialised again.
#pragma once
#include <memory>
#include <string>
#include <vector>

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
  cuda::CUresult init_result = cuda::kSuccess;  // cuInit's result, where one was classified
  // The libcuda whose answer this is (the one kept, else the first real one refused); "" when no
  // libcuda answered (none found, or only the toolkit's stub).
  std::string library_file;
  bool simulated = false;  // that libcuda is tests/sim's (it exports labcheck_sim_machine)
};

// How far the fabric manager got registering the GPUs (NVML's fabric state, nvml_health_api.h),
// for cuInit's 802: still registering at boot is not the same as not running.
enum class FabricRegistration { Unknown, NotStarted, InProgress, Failed };
// 802 said with what NVML's fabric state tells (cuda_init_result.cpp).
DriverProblem FabricNotReady(FabricRegistration registration, const std::string& error);

// Maps cuInit's result to a verdict with its own reason and hint (cuda_init_result.cpp): the stub
// library and "no device" are SKIPs (nothing to measure, nothing broken); a driver that cannot
// start on a machine with GPUs is a FAIL. `error` is the result as named by Describe().
DriverProblem ClassifyInitResult(cuda::CUresult result, const std::string& error);
// True when that result condemns the library file rather than the machine (34, 35, 803, 804).
bool InitResultRefusesLibrary(cuda::CUresult result);
// Why such a file was passed over, for the libraries table.
Text RefusedLibraryReason(cuda::CUresult result, const std::string& error);
// No libcuda at all (SKIP) / a libcuda lacking required symbols (FAIL).
DriverProblem NoDriverFound(const std::string& error);
DriverProblem DriverTooOld(const std::string& error);
// The name cuda.h gives a result we act on, for when the driver cannot name it (the stub cannot).
const char* KnownResultName(cuda::CUresult result);
// "install or update NVIDIA's proprietary driver (COMMAND)…", the command for this machine's
// distribution (/etc/os-release), as DriverInstallHintFor words it for os-release's ID.
const Text& DriverInstallHint();
Text DriverInstallHintFor(const std::string& os_id);
// "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", through `api`'s own names where it has them.
std::string DescribeResult(const cuda::CudaDriverApi& api, cuda::CUresult result);

class CudaDriver {
 public:
  // Loads libcuda and runs cuInit(0). Never crashes on a missing library or symbol; the error
  // explains, and `problem` tells SKIP from FAIL.
  static std::unique_ptr<CudaDriver> Load(const LibrarySearchPaths& paths, DriverProblem* problem);
  // A table filled by someone else (in-process fakes in tests); cuInit is the caller's business.
  static std::unique_ptr<CudaDriver> FromApi(const cuda::CudaDriverApi& api, int version);

  const cuda::CudaDriverApi& api() const { return api_; }
  const std::string& file() const { return loaded_.file; }
  LibraryOrigin origin() const { return loaded_.origin; }
  // The libcuda files refused before this one (stubs, mismatched copies), with the reason.
  const std::vector<SkippedLibrary>& skipped() const { return loaded_.skipped; }
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

// The symbol table Load binds, newest name first (tests check every name against NVIDIA's libraries).
std::vector<SymbolBinding> CudaDriverSymbols(cuda::CudaDriverApi& api);

}  // namespace labcheck::gpu

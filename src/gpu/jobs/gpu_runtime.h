// What every GPU child job opens first: the search paths from its arguments, the CUDA driver
// (cuInit), NVML when it loads (optional: its absence costs fields, not the job) and, on demand,
// cuBLASLt. A job that cannot start returns the envelope saying why (SKIP or FAIL).
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "gpu/bench/device_resources.h"
#include "gpu/nvidia/cublaslt_library.h"
#include "gpu/nvidia/cuda_driver.h"
#include "gpu/nvidia/nvml_library.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

// Arguments every GPU job takes: `--site-packages DIR` (repeated), `--quick`, and `--KEY VALUE`
// options of its own.
struct JobArgs {
  std::vector<std::string> site_packages;
  bool quick = false;
  std::vector<std::pair<std::string, std::string>> options;
  std::string Option(const std::string& key, const std::string& fallback = {}) const;
};
JobArgs ParseJobArgs(const std::vector<std::string>& args);
std::vector<std::string> JobArgsToArgv(const JobArgs& args);

// Child jobs print their result before anything of NVIDIA's is torn down: a real driver's
// teardown (a context's destruction, a library's destructors at dlclose or exit) can hang or
// crash, after an Xid or beside a stuck collective, and take the result with it. What is handed
// here lives until the process ends, and the internal-child entry leaves with _exit right after
// printing the result, so it is never destroyed or unloaded at all; the OS frees it.
void KeepUntilExit(std::shared_ptr<void> held);

// One row of the libraries table: a library in use, a file refused before it (with why), or one
// found further down the search order and never opened (an alternative).
struct LibraryRecord {
  std::string name, path, origin, version;
  std::string status = "used";  // "used", "skipped", "alternative"
  Text note;                    // why it was skipped; what the used one was built for
};
// The rows for a search's refusals.
std::vector<LibraryRecord> SkippedRecords(const std::string& name, const std::vector<SkippedLibrary>& skipped);

class GpuRuntime {
 public:
  // nullptr with *envelope set when the driver cannot be used. Its libraries and contexts are
  // kept until the process ends (KeepUntilExit), not released when the runtime goes.
  static std::unique_ptr<GpuRuntime> Open(const JobArgs& args, nlohmann::json* envelope);
  // From tables filled by someone else (in-process fakes in tests); nvml and cublaslt may be null.
  static std::unique_ptr<GpuRuntime> FromParts(std::unique_ptr<CudaDriver> driver, std::unique_ptr<Nvml> nvml,
                                               std::unique_ptr<CublasLt> cublaslt = nullptr);
  ~GpuRuntime();

  // GPU `ordinal`'s primary context, retained on first use and kept for the whole job, so that
  // no measurement pays for creating it again. Made current on the calling thread. Thread-safe.
  Result<std::shared_ptr<DeviceContext>> Context(int ordinal);

  const CudaDriver& driver() const { return *driver_; }
  const Nvml* nvml() const { return nvml_.get(); }
  const std::string& nvml_error() const { return nvml_error_; }
  int device_count() const { return device_count_; }
  const LibrarySearchPaths& paths() const { return paths_; }

  // cuBLASLt, loaded on first use.
  Result<const CublasLt*> cublaslt();
  // NVML's handle for a CUDA ordinal, matched by PCI bus id; null without NVML.
  nvml::nvmlDevice_t NvmlDevice(int ordinal) const;
  std::string PciBusId(int ordinal) const;  // canonical form, empty on failure
  int ComputeCapability(int ordinal) const;  // major*10 + minor

  void Record(LibraryRecord record) { libraries_.push_back(std::move(record)); }
  nlohmann::json LibrariesJson() const;

 private:
  LibrarySearchPaths paths_;
  std::unique_ptr<CudaDriver> driver_;
  std::unique_ptr<Nvml> nvml_;
  std::string nvml_error_;
  std::unique_ptr<CublasLt> cublaslt_;
  std::optional<Status> cublaslt_error_;
  int device_count_ = 0;
  std::vector<LibraryRecord> libraries_;
  std::mutex contexts_mutex_;
  std::vector<std::shared_ptr<DeviceContext>> contexts_;
  bool keep_until_exit_ = false;  // Open(): a child job's runtime
};

}  // namespace labcheck::gpu

#include "gpu/jobs/gpu_runtime.h"

#include "gpu/health/fabric_registration.h"
#include "gpu/job_envelope.h"
#include "gpu/nvidia/driver_state_probe.h"
#include "gpu/nvidia/nvidia_search_paths.h"

namespace labcheck::gpu {

std::string JobArgs::Option(const std::string& key, const std::string& fallback) const {
  for (const auto& [k, v] : options)
    if (k == key) return v;
  return fallback;
}

JobArgs ParseJobArgs(const std::vector<std::string>& args) {
  JobArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--quick") {
      parsed.quick = true;
    } else if (a.rfind("--", 0) == 0 && i + 1 < args.size()) {
      if (a == "--site-packages") parsed.site_packages.push_back(args[i + 1]);
      else parsed.options.emplace_back(a.substr(2), args[i + 1]);
      ++i;
    }
  }
  return parsed;
}

std::vector<std::string> JobArgsToArgv(const JobArgs& args) {
  std::vector<std::string> argv;
  for (const std::string& dir : args.site_packages) {
    argv.push_back("--site-packages");
    argv.push_back(dir);
  }
  if (args.quick) argv.push_back("--quick");
  for (const auto& [k, v] : args.options) {
    argv.push_back("--" + k);
    argv.push_back(v);
  }
  return argv;
}

std::vector<LibraryRecord> SkippedRecords(const std::string& name, const std::vector<SkippedLibrary>& skipped) {
  std::vector<LibraryRecord> rows;
  for (const SkippedLibrary& s : skipped) rows.push_back({name, s.file, OriginName(s.origin), "", "skipped", s.why});
  return rows;
}

void KeepUntilExit(std::shared_ptr<void> held) {
  static std::mutex mutex;
  static auto* kept = new std::vector<std::shared_ptr<void>>();  // never destroyed, on purpose
  std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(held));
}

namespace {

// cuInit's 802 on an NVSwitch board: NVML still answers, and its fabric state says whether the
// fabric manager is registering the GPUs (boot) or has not started (health/fabric_registration.h).
DriverProblem SayWhyNotReady(const LibrarySearchPaths& paths, const DriverProblem& problem) {
  Result<std::unique_ptr<Nvml>> nvml = Nvml::Load(paths);
  const FabricRegistration registration =
      nvml.ok() ? health::ReadFabricRegistration(**nvml) : FabricRegistration::Unknown;
  DriverProblem said = FabricNotReady(registration, problem.error);
  said.library_file = problem.library_file;
  said.simulated = problem.simulated;
  return said;
}

// Why CUDA did not start, with the driver's state beside it (driver_state.h): a driver installed
// but not loaded, or of another version than its module, is said as such whatever cuInit named.
nlohmann::json DriverFailureEnvelope(const LibrarySearchPaths& paths, DriverProblem problem) {
  std::unique_ptr<Nvml> nvml;
  const DriverState state = ProbeDriverState(paths, problem, &nvml);
  if (nvml) KeepUntilExit(std::shared_ptr<Nvml>(std::move(nvml)));
  if (std::optional<DriverProblem> stated = ProblemForState(state, problem)) problem = std::move(*stated);
  nlohmann::json envelope = problem.verdict == DriverVerdict::Skip ? SkipEnvelope(problem.reason, problem.hint, problem.error)
                                                                   : FailEnvelope(problem.reason, problem.hint, problem.error);
  envelope["driver_state"] = DriverStateJson(state);
  return envelope;
}

}  // namespace

std::unique_ptr<GpuRuntime> GpuRuntime::Open(const JobArgs& args, nlohmann::json* envelope) {
  std::unique_ptr<GpuRuntime> runtime(new GpuRuntime());
  runtime->keep_until_exit_ = true;
  runtime->paths_ = NvidiaSearchPaths(args.site_packages);
  DriverProblem problem;
  runtime->driver_ = CudaDriver::Load(runtime->paths_, &problem);
  if (!runtime->driver_ && problem.init_result == cuda::kErrorSystemNotReady) problem = SayWhyNotReady(runtime->paths_, problem);
  if (!runtime->driver_) {
    *envelope = DriverFailureEnvelope(runtime->paths_, std::move(problem));
    return nullptr;
  }
  for (LibraryRecord& row : SkippedRecords("CUDA driver", runtime->driver_->skipped())) runtime->Record(std::move(row));
  runtime->Record({"CUDA driver", runtime->driver_->file(), OriginName(runtime->driver_->origin()),
                   runtime->driver_->VersionText()});
  // Libraries loaded from here on (cuBLASLt, NCCL) are judged against the driver's CUDA.
  runtime->paths_.driver_cuda_version = runtime->driver_->version();
  const auto& api = runtime->driver_->api();
  cuda::CUresult counted = api.cuDeviceGetCount(&runtime->device_count_);
  if (counted != cuda::kSuccess || runtime->device_count_ == 0) {
    DriverProblem none = ClassifyInitResult(cuda::kErrorNoDevice, runtime->driver_->Describe(counted));
    *envelope = SkipEnvelope(none.reason, none.hint, none.error);
    return nullptr;
  }
  Result<std::unique_ptr<Nvml>> nvml = Nvml::Load(runtime->paths_);
  if (nvml.ok()) {
    runtime->nvml_ = std::move(nvml).value();
    for (LibraryRecord& row : SkippedRecords("NVML", runtime->nvml_->skipped())) runtime->Record(std::move(row));
    runtime->Record({"NVML", runtime->nvml_->file(), OriginName(runtime->nvml_->origin()), runtime->nvml_->DriverVersion()});
  } else {
    runtime->nvml_error_ = nvml.status().message();
  }
  return runtime;
}

std::unique_ptr<GpuRuntime> GpuRuntime::FromParts(std::unique_ptr<CudaDriver> driver, std::unique_ptr<Nvml> nvml,
                                                  std::unique_ptr<CublasLt> cublaslt) {
  std::unique_ptr<GpuRuntime> runtime(new GpuRuntime());
  runtime->driver_ = std::move(driver);
  runtime->nvml_ = std::move(nvml);
  runtime->cublaslt_ = std::move(cublaslt);
  if (!runtime->cublaslt_) runtime->cublaslt_error_ = Status::Error("no cuBLASLt given");
  runtime->driver_->api().cuDeviceGetCount(&runtime->device_count_);
  return runtime;
}

GpuRuntime::~GpuRuntime() {
  if (keep_until_exit_) {
    struct Parts {
      std::unique_ptr<CudaDriver> driver;
      std::unique_ptr<Nvml> nvml;
      std::unique_ptr<CublasLt> cublaslt;
      std::vector<std::shared_ptr<DeviceContext>> contexts;
    };
    auto parts = std::make_shared<Parts>();
    parts->driver = std::move(driver_);
    parts->nvml = std::move(nvml_);
    parts->cublaslt = std::move(cublaslt_);
    parts->contexts = std::move(contexts_);
    KeepUntilExit(std::move(parts));
    return;
  }
  contexts_.clear();  // released while the driver is still loaded
}

Result<std::shared_ptr<DeviceContext>> GpuRuntime::Context(int ordinal) {
  std::lock_guard<std::mutex> lock(contexts_mutex_);
  if (ordinal < 0 || ordinal >= device_count_) return Status::Error("no GPU " + std::to_string(ordinal));
  if (contexts_.size() < static_cast<size_t>(device_count_)) contexts_.resize(device_count_);
  if (!contexts_[ordinal]) {
    Result<std::shared_ptr<DeviceContext>> opened = DeviceContext::Open(*driver_, ordinal);
    if (!opened.ok()) return opened.status();
    contexts_[ordinal] = *opened;
  }
  Status current = contexts_[ordinal]->MakeCurrent();
  if (!current.ok()) return current;
  return contexts_[ordinal];
}

Result<const CublasLt*> GpuRuntime::cublaslt() {
  if (cublaslt_) return static_cast<const CublasLt*>(cublaslt_.get());
  if (cublaslt_error_) return *cublaslt_error_;
  // One cuBLASLt serves every GPU of this process, so it must have kernels for the oldest card: a
  // machine that mixes a V100 (7.0) with an A100 runs both on cuBLASLt 12, which still runs the
  // A100 at full speed; choosing per card would take one process per library.
  int oldest_cc = 0;
  for (int i = 0; i < device_count_; ++i) {
    const int cc = ComputeCapability(i);
    if (cc > 0 && (oldest_cc == 0 || cc < oldest_cc)) oldest_cc = cc;
  }
  Result<std::unique_ptr<CublasLt>> loaded = CublasLt::Load(paths_, driver_->version(), oldest_cc);
  if (!loaded.ok()) {
    cublaslt_error_ = loaded.status();
    return loaded.status();
  }
  cublaslt_ = std::move(loaded).value();
  Record({"cuBLASLt", cublaslt_->file(), OriginName(cublaslt_->origin()), cublaslt_->VersionText()});
  return static_cast<const CublasLt*>(cublaslt_.get());
}

std::string GpuRuntime::PciBusId(int ordinal) const {
  char bus_id[64] = {};
  cuda::CUdevice device = 0;
  if (driver_->api().cuDeviceGet(&device, ordinal) != cuda::kSuccess) return "";
  if (driver_->api().cuDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cuda::kSuccess) return "";
  return CanonicalPciBusId(bus_id);
}

nvml::nvmlDevice_t GpuRuntime::NvmlDevice(int ordinal) const {
  if (!nvml_) return nullptr;
  std::string bus_id = PciBusId(ordinal);
  return bus_id.empty() ? nullptr : nvml_->DeviceByPciBusId(bus_id);
}

int GpuRuntime::ComputeCapability(int ordinal) const {
  cuda::CUdevice device = 0;
  int major = 0, minor = 0;
  const auto& api = driver_->api();
  if (api.cuDeviceGet(&device, ordinal) != cuda::kSuccess) return 0;
  api.cuDeviceGetAttribute(&major, cuda::kAttrComputeCapabilityMajor, device);
  api.cuDeviceGetAttribute(&minor, cuda::kAttrComputeCapabilityMinor, device);
  return major * 10 + minor;
}

nlohmann::json GpuRuntime::LibrariesJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const LibraryRecord& r : libraries_)
    list.push_back({{"name", r.name}, {"path", r.path}, {"origin", r.origin}, {"version", r.version},
                    {"status", r.status}, {"note", r.note.empty() ? nlohmann::json(nullptr) : TextJson(r.note)}});
  return list;
}

}  // namespace labcheck::gpu

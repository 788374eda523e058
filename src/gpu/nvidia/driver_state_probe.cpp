#include "gpu/nvidia/driver_state_probe.h"

#include <cstdlib>
#include <filesystem>

#include "env/sysfs.h"
#include "platform/files.h"

namespace labcheck::gpu {

namespace {

std::optional<std::string> Root(const char* variable, const char* real, bool simulated) {
  const char* value = std::getenv(variable);
  if (value != nullptr && *value != '\0') return std::string(value);
  if (simulated) return std::nullopt;
  return std::string(real);
}

// The toolkit's stubs live in a stubs/ folder (lib64/stubs/libnvidia-ml.so): their nvmlInit_v2
// answers 9 whatever the machine, so they say nothing of the driver.
bool ToolkitStub(const std::string& file) { return file.find("/stubs/") != std::string::npos; }

}  // namespace

DriverStateRoots DriverStateRootsFromEnvironment(bool simulated) {
  return {Root("LABCHECK_PROC_ROOT", "/proc", simulated), Root("LABCHECK_SYS_ROOT", "/sys", simulated)};
}

KernelModuleFacts ReadKernelModule(const std::optional<std::string>& proc, const std::optional<std::string>& sys) {
  KernelModuleFacts module;
  if (!proc) {
    module.na = "not read: a simulated machine without LABCHECK_PROC_ROOT (this machine's /proc is not the profile's)";
    return module;
  }
  module.read = true;
  const std::string version_file = *proc + "/driver/nvidia/version";
  if (Result<std::string> text = ReadFile(version_file); text.ok()) {
    module.loaded = true;
    module.version = ModuleVersionFromProc(*text);
    if (!module.version.empty()) module.source = version_file;
  }
  if (!sys) return module;
  std::error_code error;
  if (!std::filesystem::is_directory(*sys + "/module/nvidia", error)) return module;
  module.loaded = true;
  const std::string sys_version = *sys + "/module/nvidia/version";
  if (Result<std::string> line = env::ReadFirstLine(sys_version); module.version.empty() && line.ok()) {
    module.version = env::Trim(*line);
    if (!module.version.empty()) module.source = sys_version;
  }
  return module;
}

DriverLibraryFacts LibraryFacts(const std::string& file, std::optional<int> init_result) {
  DriverLibraryFacts facts{file, "", init_result};
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::canonical(file, error);
  if (!error) facts.version = DriverVersionFromFileName(resolved.filename().string());
  return facts;
}

DriverState ProbeDriverState(const LibrarySearchPaths& paths, const DriverProblem& problem, std::unique_ptr<Nvml>* keep_nvml) {
  DriverState state;
  DriverFacts& f = state.facts;
  // cuInit was asked where a libcuda bound its symbols; DriverTooOld's libcuda never was.
  const bool asked = problem.init_result != cuda::kSuccess || problem.verdict == DriverVerdict::Ready;
  if (!problem.library_file.empty())
    f.libcuda = LibraryFacts(problem.library_file, asked ? std::optional<int>(problem.init_result) : std::nullopt);
  f.libcuda_stub_seen = problem.init_result == cuda::kErrorStubLibrary;

  std::vector<NvmlInitAnswer> answers;
  Result<std::unique_ptr<Nvml>> nvml = Nvml::Load(paths, &answers);
  for (const NvmlInitAnswer& a : answers) {
    if (ToolkitStub(a.file)) continue;
    f.nvml = LibraryFacts(a.file, a.result);
    break;
  }
  if (nvml.ok() && keep_nvml != nullptr) *keep_nvml = std::move(nvml).value();

  const DriverStateRoots roots = DriverStateRootsFromEnvironment(problem.simulated);
  f.module = ReadKernelModule(roots.proc, roots.sys);
  if (roots.sys) f.bus = env::ReadNvidiaPciBus(*roots.sys);
  else f.bus_na = "not read: a simulated machine without LABCHECK_SYS_ROOT (this machine's /sys is not the profile's)";
  state.kind = JudgeDriverState(f);
  return state;
}

DriverState RunningDriverState(const CudaDriver& driver, const Nvml* nvml) {
  DriverState state;
  state.kind = DriverStateKind::Running;
  state.facts.libcuda = LibraryFacts(driver.file(), cuda::kSuccess);
  if (nvml != nullptr) state.facts.nvml = LibraryFacts(nvml->file(), 0);
  state.facts.module.na = "not read: the driver is running";
  state.facts.bus_na = "not read: the driver is running";
  return state;
}

}  // namespace labcheck::gpu

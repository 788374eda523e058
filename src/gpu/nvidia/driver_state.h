// Which state the NVIDIA driver is in when CUDA cannot start, from what tells the cases apart:
// what the userspace libraries answer (cuInit, nvmlInit_v2) and which version their files carry
// (libcuda.so.535.261.03), whether the kernel module is loaded and its version
// (/proc/driver/nvidia/version, /sys/module/nvidia/version), and the NVIDIA GPUs on the PCI bus.
//
// The commonest ways a GPU machine breaks are told apart here, because each needs its own fix:
//   module_not_loaded  the driver is installed, its kernel module is not loaded (a kernel update
//                      it was not rebuilt for, Secure Boot refusing an unsigned module): NVIDIA's
//                      535.261.03 userspace then answers cuInit 100 CUDA_ERROR_NO_DEVICE and
//                      nvmlInit_v2 9 NVML_ERROR_DRIVER_NOT_LOADED, and /proc/driver/nvidia/version
//                      is absent (tests/gpu/real_driver_test.cpp asks the real libraries);
//   version_mismatch   library and module of different versions (an upgrade without a reboot):
//                      nvmlInit_v2 18 NVML_ERROR_LIB_RM_VERSION_MISMATCH, cuInit 803
//                      CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (nvml.h, cuda.h), or the two versions read;
//   no_gpu_on_bus      no NVIDIA GPU on the PCI bus: nothing to measure, the only state that
//                      stays a SKIP (and node-check's "cannot tell").
// The others: running (cuInit succeeded), not_installed (no userspace driver: no libcuda, or only
// the toolkit's stub), loaded (the module is loaded and CUDA still cannot start: cuInit's own
// reason stands), unknown (a simulated machine without a fake /proc and /sys, or an unreadable bus
// beside an absent module).
//
// The judgement is a pure function of DriverFacts (tested on hand-written facts); driver_state_probe
// gathers them. The state and its evidence go into the report's JSON as gpu.inventory's
// data.driver_state (docs/report-schema.md) and node-check's findings read them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "env/nvidia_pci.h"
#include "gpu/nvidia/cuda_driver.h"

namespace labcheck::gpu {

enum class DriverStateKind { Running, Loaded, ModuleNotLoaded, VersionMismatch, NoGpuOnBus, NotInstalled, Unknown };
const char* DriverStateName(DriverStateKind kind);  // "module_not_loaded", …

// One userspace library as the search met it: the file, the driver version its real name carries,
// and what its initialisation answered.
struct DriverLibraryFacts {
  std::string file;                // as opened ("/usr/lib/x86_64-linux-gnu/libcuda.so.1")
  std::string version;             // "535.261.03" from the resolved file name; "" when it carries none
  std::optional<int> init_result;  // cuInit / nvmlInit_v2; nullopt: never called
};

struct KernelModuleFacts {
  bool read = false;     // false: not looked at (a simulated machine without a fake /proc, /sys)
  bool loaded = false;   // /proc/driver/nvidia/version or /sys/module/nvidia is there
  std::string version;   // "535.261.03"; "" when unknown
  std::string source;    // the file the version came from
  std::string na;        // why it was not read, when it was not
};

struct DriverFacts {
  std::optional<DriverLibraryFacts> libcuda;  // the libcuda whose answer stands; nullopt: none but the stub
  bool libcuda_stub_seen = false;             // the toolkit's stub answered 34
  std::optional<DriverLibraryFacts> nvml;     // the first libnvidia-ml that is not the toolkit's stub
  KernelModuleFacts module;
  std::optional<env::NvidiaPciBus> bus;       // nullopt: not looked at (bus_na says why)
  std::string bus_na;
};

struct DriverState {
  DriverStateKind kind = DriverStateKind::Unknown;
  DriverFacts facts;
};

// The state the facts show (the order of the cases is in driver_state.cpp).
DriverStateKind JudgeDriverState(const DriverFacts& facts);

// "535.261.03" from "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.261.03  …" or the Open
// Kernel Module's "… for x86_64  580.95.05  Release Build …"; "" when the text holds none.
std::string ModuleVersionFromProc(const std::string& text);
// "535.261.03" from a file name such as libcuda.so.535.261.03 or libnvidia-ml.so.535.261.03
// (NVIDIA's installers and the distributions' packages install the versioned file and point the
// sonames at it); "" for libcuda.so.1 itself, a stub or a WSL library.
std::string DriverVersionFromFileName(const std::string& file_name);

// What the check says in this state, when it is a state of its own: module_not_loaded and
// version_mismatch (FAIL), no_gpu_on_bus and not_installed with GPUs on the bus (SKIP, only where
// cuInit's own verdict was a SKIP). nullopt: cuInit's own problem stands.
std::optional<DriverProblem> ProblemForState(const DriverState& state, const DriverProblem& cuda_problem);

// {"state", "libcuda": {file, version, cu_init} | null, "nvml": {file, version, nvml_init} | null,
//  "kernel_module": {loaded, version, source} | {"na"}, "pci_bus": {nvidia_gpus, drivers} | {"na"}}.
nlohmann::json DriverStateJson(const DriverState& state);

}  // namespace labcheck::gpu

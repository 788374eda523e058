// Gathers driver_state.h's facts on this machine: the libcuda cuInit was asked of (the search's
// DriverProblem), NVML's own answer (a search of its own), the kernel module under /proc and /sys,
// and the NVIDIA devices on the PCI bus.
//
// /proc and /sys are LABCHECK_PROC_ROOT's and LABCHECK_SYS_ROOT's fake trees where the tests set
// them, else the real ones; on the simulated machine (tests/sim) without a fake tree neither is
// read: this machine's module and bus are not the profile's, and never passed off as its.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "gpu/nvidia/cuda_driver.h"
#include "gpu/nvidia/driver_state.h"
#include "gpu/nvidia/nvml_library.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

struct DriverStateRoots {
  std::optional<std::string> proc;  // "/proc" or a fake tree; nullopt: not read
  std::optional<std::string> sys;
};
DriverStateRoots DriverStateRootsFromEnvironment(bool simulated);

// The module from <proc>/driver/nvidia/version (the module writes it while loaded:
// NVIDIA/open-gpu-kernel-modules kernel-open/nvidia/nv-procfs.c, nv_procfs_read_version, "NVRM
// version: %s") and <sys>/module/nvidia (the kernel's directory of a loaded module; its `version`
// is MODULE_VERSION(NV_VERSION_STRING), kernel-open/nvidia/nv.c). Without `proc` nothing is read.
KernelModuleFacts ReadKernelModule(const std::optional<std::string>& proc, const std::optional<std::string>& sys);

// A library file's facts: the file, the driver version its resolved name carries, the answer.
DriverLibraryFacts LibraryFacts(const std::string& file, std::optional<int> init_result);

// After a failed CUDA start (`problem`, from CudaDriver::Load). NVML is searched anew; the one that
// initialised, if any, is handed to `keep_nvml` (the caller keeps it to the end of the process).
DriverState ProbeDriverState(const LibrarySearchPaths& paths, const DriverProblem& problem,
                             std::unique_ptr<Nvml>* keep_nvml = nullptr);

// A started driver: "running", with the files in use.
DriverState RunningDriverState(const CudaDriver& driver, const Nvml* nvml);

}  // namespace labcheck::gpu

// The simulated machine's NVIDIA kernel module (profile keys kernel_module/loaded and
// kernel_module/version), and what the userspace driver answers about it at initialisation, as
// NVIDIA's does:
//   not loaded      cuInit → 100 CUDA_ERROR_NO_DEVICE, nvmlInit_v2 → 9 NVML_ERROR_DRIVER_NOT_LOADED:
//                   what Debian's libcuda1 and libnvidia-ml1 535.261.03 answered on a machine without
//                   the module (tests/gpu/real_driver_test.cpp asks them again on every run where
//                   the packages download). libcuda opens /dev/nvidiactl, which needs the module
//                   whatever the bus holds (its nvidia-modprobe helper, when installed, may load it
//                   first: not simulated);
//   another version cuInit → 803 CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, nvmlInit_v2 → 18
//                   NVML_ERROR_LIB_RM_VERSION_MISMATCH ("RM detects a driver/library version
//                   mismatch", nvml.h; "a mismatch between the versions of the display driver and
//                   the CUDA driver", cuda.h): a driver upgraded without a reboot. The real pair is
//                   not run here (it takes a loaded module of another version).
#pragma once

#include "core/profile.h"

namespace nvsim {

enum class KernelModule { Matches, NotLoaded, OtherVersion };

// kernel_module/loaded false → NotLoaded; kernel_module/version given and not driver_version →
// OtherVersion.
KernelModule KernelModuleState(const Machine& m);

}  // namespace nvsim

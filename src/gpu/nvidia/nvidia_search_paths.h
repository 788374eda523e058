// Where NVIDIA's libraries are looked for (docs/gpu-checks.md), as a policy for the generic search
// in platform/library_search.h: LD_LIBRARY_PATH; the loader (bare soname, then every file its cache
// /etc/ld.so.cache lists); $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda (lib64, lib, then
// targets/<name>/lib for this processor: x86_64-linux, or sbsa-linux and aarch64-linux on arm64,
// platform/machine_arch.h); the chosen Python's site-packages, nvidia/*/lib (pip's
// nvidia-cublas-cu12, nvidia-nccl-cu12 and the CUDA 13 wheels' nvidia/cu13/lib), which is where a pip-installed
// PyTorch keeps cuBLAS and NCCL: the course promises no separate CUDA toolkit is needed. The
// driver's own libraries (libcuda, NVML) are LibrarySpec::driver_library: after the loader they are
// looked for in DriverFolders(), never in toolkits (which hold only stubs) or wheels.
#pragma once
#include <string>
#include <vector>

#include "platform/library_search.h"

namespace labcheck::gpu {

// Reads LD_LIBRARY_PATH, CUDA_HOME and CUDA_PATH from this process's environment.
LibrarySearchPaths NvidiaSearchPaths(std::vector<std::string> site_packages);

// Where NVIDIA's driver installers put libcuda.so.1 and libnvidia-ml.so.1, for when neither
// LD_LIBRARY_PATH nor the loader cache lead to a working one (a stub first on LD_LIBRARY_PATH hides
// the cache from dlopen; a container may have no ld.so.cache entry for the injected driver):
//   /usr/lib/<multiarch>   Debian and Ubuntu packages, the .run installer on them (MultiarchTriplet());
//   /usr/lib64             RHEL, Fedora, SUSE packages and the .run installer there;
//   /usr/lib               Arch, and the .run installer's default on other systems;
//   /usr/local/nvidia/lib64, /usr/local/nvidia/lib   the driver mounted into Kubernetes pods
//                          (NVIDIA's device plugin and GPU operator) and old nvidia-docker;
//   /usr/lib/wsl/lib       WSL2, where Windows' driver provides libcuda.
// The simulated driver (tests/sim) lives only in build/sim-nvidia: none of these reach it.
std::vector<std::string> DriverFolders();

}  // namespace labcheck::gpu

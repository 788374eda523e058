// Where NVIDIA's libraries are looked for (docs/gpu-checks.md), as a policy for the generic search
// in platform/library_search.h: LD_LIBRARY_PATH; the loader's cache; $CUDA_HOME, $CUDA_PATH, then
// /usr/local/cuda (lib64, lib, targets/*/lib); the chosen Python's site-packages, nvidia/*/lib
// (pip's nvidia-cublas-cu12, nvidia-nccl-cu12 and the CUDA 13 wheels' nvidia/cu13/lib), which is
// where a pip-installed PyTorch keeps cuBLAS and NCCL: the course promises no separate CUDA
// toolkit is needed. The driver's own libraries (libcuda, NVML) are LibrarySpec::driver_library.
#pragma once
#include <string>
#include <vector>

#include "platform/library_search.h"

namespace labcheck::gpu {

// Reads LD_LIBRARY_PATH, CUDA_HOME and CUDA_PATH from this process's environment.
LibrarySearchPaths NvidiaSearchPaths(std::vector<std::string> site_packages);

}  // namespace labcheck::gpu

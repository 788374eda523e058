// Shared by the files of the libcuda.so.1 sim: the driver API's types as the ABI sees them
// (/usr/local/cuda/include/cuda.h) and the CUresult values we return.
#pragma once
#include <cstddef>

#include "core/devices.h"
#include "core/export.h"

namespace cusim {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = nvsim::Context*;
using CUstream = nvsim::Stream*;
using CUevent = nvsim::Event*;
using CUjit_option = int;
struct CUuuid {
  char bytes[16];
};

inline constexpr CUresult kSuccess = 0;
inline constexpr CUresult kInvalidValue = 1;
inline constexpr CUresult kOutOfMemory = 2;
inline constexpr CUresult kNotInitialized = 3;
inline constexpr CUresult kNoDevice = 100;
inline constexpr CUresult kInvalidDevice = 101;
inline constexpr CUresult kInvalidImage = 200;
inline constexpr CUresult kInvalidContext = 201;
inline constexpr CUresult kNoBinaryForGpu = 209;
inline constexpr CUresult kPeerAccessUnsupported = 217;
inline constexpr CUresult kInvalidPtx = 218;
inline constexpr CUresult kUnsupportedPtxVersion = 222;
inline constexpr CUresult kEccUncorrectable = 214;
inline constexpr CUresult kInvalidHandle = 400;
inline constexpr CUresult kNotFound = 500;
inline constexpr CUresult kNotReady = 600;
inline constexpr CUresult kIllegalAddress = 700;
inline constexpr CUresult kLaunchOutOfResources = 701;
inline constexpr CUresult kNotSupported = 801;
inline constexpr CUresult kPeerAccessAlreadyEnabled = 704;
inline constexpr CUresult kPeerAccessNotEnabled = 705;
inline constexpr CUresult kUnknown = 999;

// True after a successful cuInit.
bool Initialised();
// The profile index of a CUdevice (a CUDA ordinal), or -1.
int DeviceIndex(CUdevice device);
// Resident threads per SM (CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR): the profile's
// `max_threads_per_sm`, else the CUDA Programming Guide's figure for the compute capability.
int MaxThreadsPerSm(const nvsim::Gpu& g);

// The share of the GPU's thread slots a grid fills, at most 1: a grid smaller than one full wave
// leaves SMs (or part of each) idle, and the sim's rate drops with it (cuda/cuda_module.cpp).
double Occupancy(const nvsim::Gpu& g, unsigned blocks, unsigned threads);

// The error a lost context returns from every call (cuda.h on CUDA_ERROR_ILLEGAL_ADDRESS: "any
// further CUDA work will return the same error"; the sim treats CUDA_ERROR_ECC_UNCORRECTABLE
// alike), for the context of profile index `device`; kSuccess when it is not lost.
inline CUresult Sticky(int device) { return device >= 0 ? nvsim::PrimaryContext(device).sticky_error : kSuccess; }

}  // namespace cusim

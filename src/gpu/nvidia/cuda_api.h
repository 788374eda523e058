// Our own declarations of the part of the CUDA driver API (libcuda.so.1) that lab_check uses, so
// the build needs no CUDA headers. Values are checked against the real cuda.h by
// tests/gpu/abi_test.cpp wherever the toolkit's headers are present.
//
// Names keep NVIDIA's spelling for types (so a reader can look them up) but live in our
// namespace; constants are kCamelCase so they never meet cuda.h's macros or enumerators.
#pragma once
#include <cstddef>

namespace labcheck::gpu::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // CUdeviceptr_v2: 64 bits on every platform we run on
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUmod_st;
struct CUfunc_st;
using CUcontext = CUctx_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
using CUmodule = CUmod_st*;      // a loaded PTX module (bench/kernel_module.h)
using CUfunction = CUfunc_st*;   // one kernel of it
using CUjit_option = int;        // enum CUjit_option_enum
struct CUuuid {
  char bytes[16];
};

// CUresult values we act on.
inline constexpr CUresult kSuccess = 0;
inline constexpr CUresult kErrorInvalidValue = 1;
inline constexpr CUresult kErrorOutOfMemory = 2;
inline constexpr CUresult kErrorNotInitialized = 3;
inline constexpr CUresult kErrorStubLibrary = 34;          // the toolkit's stubs/libcuda.so
// 35 is the runtime's cudaErrorInsufficientDriver (driver_types.h); cuda.h has no CUresult 35, but
// shims and our simulator return it from cuInit for "driver older than the CUDA asked for".
inline constexpr CUresult kErrorInsufficientDriver = 35;
inline constexpr CUresult kErrorCallRequiresNewerDriver = 36;
inline constexpr CUresult kErrorDeviceUnavailable = 46;    // exclusive-process GPU in use
inline constexpr CUresult kErrorNoDevice = 100;
inline constexpr CUresult kErrorInvalidDevice = 101;
inline constexpr CUresult kErrorPeerAccessUnsupported = 217;
inline constexpr CUresult kErrorNotReady = 600;
inline constexpr CUresult kErrorPeerAccessAlreadyEnabled = 704;
inline constexpr CUresult kErrorPeerAccessNotEnabled = 705;
inline constexpr CUresult kErrorSystemNotReady = 802;        // NVSwitch boards: fabric manager not running
inline constexpr CUresult kErrorSystemDriverMismatch = 803;  // kernel module ≠ user-space driver
inline constexpr CUresult kErrorCompatNotSupportedOnDevice = 804;  // forward-compat libcuda, wrong GPU
inline constexpr CUresult kErrorUnknown = 999;
// Loading and launching our PTX kernels (bench/kernel_module.h).
inline constexpr CUresult kErrorInvalidImage = 200;           // not a module the driver can read
inline constexpr CUresult kErrorNoBinaryForGpu = 209;
inline constexpr CUresult kErrorInvalidPtx = 218;             // the JIT refused the PTX
inline constexpr CUresult kErrorUnsupportedPtxVersion = 222;  // .version newer than this driver
inline constexpr CUresult kErrorNotFound = 500;               // cuModuleGetFunction: no such entry
inline constexpr CUresult kErrorIllegalAddress = 700;
// An uncorrectable ECC error during a kernel: the context is lost, every later call returns it
// (the memory test reports it as its cause, gpu/memtest/memtest_runner.cpp).
inline constexpr CUresult kErrorEccUncorrectable = 214;

// CUdevice_attribute values.
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr int kAttrPciBusId = 33;
inline constexpr int kAttrPciDeviceId = 34;
inline constexpr int kAttrL2CacheSize = 38;
inline constexpr int kAttrAsyncEngineCount = 40;
inline constexpr int kAttrPciDomainId = 50;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;
inline constexpr int kAttrMaxThreadsPerMultiprocessor = 39;

inline constexpr unsigned kStreamNonBlocking = 0x1;   // CU_STREAM_NON_BLOCKING
inline constexpr unsigned kEventDefault = 0x0;        // CU_EVENT_DEFAULT: timing enabled
inline constexpr unsigned kMemHostAllocPortable = 0x1;  // CU_MEMHOSTALLOC_PORTABLE
inline constexpr CUjit_option kJitErrorLogBuffer = 5;           // CU_JIT_ERROR_LOG_BUFFER: char*
inline constexpr CUjit_option kJitErrorLogBufferSizeBytes = 6;  // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: in/out, by value

// The entry points, filled by LoadCudaDriver() (cuda_driver.h). Names are the ABI symbols: where a
// _v2 exists we bind it first, since the unversioned one keeps the old 32-bit or legacy semantics.
struct CudaDriverApi {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int* version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char** name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char** text) = nullptr;
  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t* bytes, CUdevice device) = nullptr;  // _v2
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetUuid)(CUuuid* uuid, CUdevice device) = nullptr;  // _v2, optional
  CUresult (*cuDeviceGetPCIBusId)(char* bus_id, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceCanAccessPeer)(int* can_access, CUdevice device, CUdevice peer) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;  // _v2
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuCtxEnablePeerAccess)(CUcontext peer, unsigned flags) = nullptr;
  CUresult (*cuCtxDisablePeerAccess)(CUcontext peer) = nullptr;
  CUresult (*cuMemGetInfo)(size_t* free_bytes, size_t* total_bytes) = nullptr;  // _v2
  CUresult (*cuMemAlloc)(CUdeviceptr* pointer, size_t bytes) = nullptr;         // _v2
  CUresult (*cuMemFree)(CUdeviceptr pointer) = nullptr;                          // _v2
  CUresult (*cuMemHostAlloc)(void** pointer, size_t bytes, unsigned flags) = nullptr;
  CUresult (*cuMemFreeHost)(void* pointer) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void* src, size_t bytes) = nullptr;  // _v2
  CUresult (*cuMemcpyDtoH)(void* dst, CUdeviceptr src, size_t bytes) = nullptr;        // _v2
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyPeerAsync)(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src,
                                CUcontext src_context, size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemsetD32)(CUdeviceptr dst, unsigned value, size_t count) = nullptr;  // _v2
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;  // _v2
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuStreamQuery)(CUstream stream) = nullptr;
  CUresult (*cuEventCreate)(CUevent* event, unsigned flags) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;  // _v2
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float* ms, CUevent start, CUevent end) = nullptr;  // _v2 first
  // Optional: the SM copy kernels (bench/sm_copy_bench.h); without them that figure is N/A.
  CUresult (*cuModuleLoadDataEx)(CUmodule* module, const void* image, unsigned num_options, CUjit_option* options,
                                 void** option_values) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                             unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream,
                             void** kernel_params, void** extra) = nullptr;
};

}  // namespace labcheck::gpu::cuda

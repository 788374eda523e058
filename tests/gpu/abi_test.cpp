// Our declarations against NVIDIA's own headers: every constant, enum value and struct layout we
// declare must equal the official one, every function pointer must have the prototype of the
// symbol we bind (checked at compile time), and every symbol name we bind must be exported by
// the toolkit's libraries or stubs. Built only where the headers are installed (see
// CMakeLists.txt); our headers come first so cuda.h's _v2 macros never touch them.
#include "gpu/nvidia/cublaslt_api.h"
#include "gpu/nvidia/cublaslt_library.h"
#include "gpu/nvidia/cuda_api.h"
#include "gpu/nvidia/cuda_driver.h"
#include "gpu/nvidia/nccl_api.h"
#include "gpu/nvidia/nccl_library.h"
#include "gpu/nvidia/nvml_api.h"
#include "gpu/nvidia/nvml_library.h"

#include <dlfcn.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

// Each row: our table, our member, the symbol it binds first (the header's name for it). The
// member's type is captured here, before NVIDIA's headers can rename the member with a macro.
#define LAB_CUDA_FUNCTIONS(X)                                                                          \
  X(cuda::CudaDriverApi, cuInit, cuInit)                                                               \
  X(cuda::CudaDriverApi, cuDriverGetVersion, cuDriverGetVersion)                                       \
  X(cuda::CudaDriverApi, cuGetErrorName, cuGetErrorName)                                               \
  X(cuda::CudaDriverApi, cuGetErrorString, cuGetErrorString)                                           \
  X(cuda::CudaDriverApi, cuDeviceGetCount, cuDeviceGetCount)                                           \
  X(cuda::CudaDriverApi, cuDeviceGet, cuDeviceGet)                                                     \
  X(cuda::CudaDriverApi, cuDeviceGetName, cuDeviceGetName)                                             \
  X(cuda::CudaDriverApi, cuDeviceTotalMem, cuDeviceTotalMem_v2)                                        \
  X(cuda::CudaDriverApi, cuDeviceGetAttribute, cuDeviceGetAttribute)                                   \
  X(cuda::CudaDriverApi, cuDeviceGetUuid, cuDeviceGetUuid_v2)                                          \
  X(cuda::CudaDriverApi, cuDeviceGetPCIBusId, cuDeviceGetPCIBusId)                                     \
  X(cuda::CudaDriverApi, cuDeviceCanAccessPeer, cuDeviceCanAccessPeer)                                 \
  X(cuda::CudaDriverApi, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain)                           \
  X(cuda::CudaDriverApi, cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2)                      \
  X(cuda::CudaDriverApi, cuCtxSetCurrent, cuCtxSetCurrent)                                             \
  X(cuda::CudaDriverApi, cuCtxSynchronize, cuCtxSynchronize)                                           \
  X(cuda::CudaDriverApi, cuCtxEnablePeerAccess, cuCtxEnablePeerAccess)                                 \
  X(cuda::CudaDriverApi, cuCtxDisablePeerAccess, cuCtxDisablePeerAccess)                               \
  X(cuda::CudaDriverApi, cuMemGetInfo, cuMemGetInfo_v2)                                                \
  X(cuda::CudaDriverApi, cuMemAlloc, cuMemAlloc_v2)                                                    \
  X(cuda::CudaDriverApi, cuMemFree, cuMemFree_v2)                                                      \
  X(cuda::CudaDriverApi, cuMemHostAlloc, cuMemHostAlloc)                                               \
  X(cuda::CudaDriverApi, cuMemFreeHost, cuMemFreeHost)                                                 \
  X(cuda::CudaDriverApi, cuMemcpyHtoD, cuMemcpyHtoD_v2)                                                \
  X(cuda::CudaDriverApi, cuMemcpyDtoH, cuMemcpyDtoH_v2)                                                \
  X(cuda::CudaDriverApi, cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2)                                      \
  X(cuda::CudaDriverApi, cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2)                                      \
  X(cuda::CudaDriverApi, cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2)                                      \
  X(cuda::CudaDriverApi, cuMemcpyPeerAsync, cuMemcpyPeerAsync)                                         \
  X(cuda::CudaDriverApi, cuMemsetD32, cuMemsetD32_v2)                                                  \
  X(cuda::CudaDriverApi, cuStreamCreate, cuStreamCreate)                                               \
  X(cuda::CudaDriverApi, cuStreamDestroy, cuStreamDestroy_v2)                                          \
  X(cuda::CudaDriverApi, cuStreamSynchronize, cuStreamSynchronize)                                     \
  X(cuda::CudaDriverApi, cuStreamQuery, cuStreamQuery)                                                 \
  X(cuda::CudaDriverApi, cuEventCreate, cuEventCreate)                                                 \
  X(cuda::CudaDriverApi, cuEventDestroy, cuEventDestroy_v2)                                            \
  X(cuda::CudaDriverApi, cuEventRecord, cuEventRecord)                                                 \
  X(cuda::CudaDriverApi, cuEventSynchronize, cuEventSynchronize)                                       \
  X(cuda::CudaDriverApi, cuEventElapsedTime, cuEventElapsedTime_v2)                                   \
  X(cuda::CudaDriverApi, cuModuleLoadDataEx, cuModuleLoadDataEx)                                       \
  X(cuda::CudaDriverApi, cuModuleGetFunction, cuModuleGetFunction)                                     \
  X(cuda::CudaDriverApi, cuModuleUnload, cuModuleUnload)                                               \
  X(cuda::CudaDriverApi, cuLaunchKernel, cuLaunchKernel)

#define LAB_CUBLASLT_FUNCTIONS(X)                                                                      \
  X(cublaslt::CublasLtApi, cublasLtCreate, cublasLtCreate)                                             \
  X(cublaslt::CublasLtApi, cublasLtDestroy, cublasLtDestroy)                                           \
  X(cublaslt::CublasLtApi, cublasLtGetVersion, cublasLtGetVersion)                                     \
  X(cublaslt::CublasLtApi, cublasLtGetCudartVersion, cublasLtGetCudartVersion)                         \
  X(cublaslt::CublasLtApi, cublasLtGetStatusName, cublasLtGetStatusName)                               \
  X(cublaslt::CublasLtApi, cublasLtMatmulDescCreate, cublasLtMatmulDescCreate)                         \
  X(cublaslt::CublasLtApi, cublasLtMatmulDescDestroy, cublasLtMatmulDescDestroy)                       \
  X(cublaslt::CublasLtApi, cublasLtMatmulDescSetAttribute, cublasLtMatmulDescSetAttribute)             \
  X(cublaslt::CublasLtApi, cublasLtMatrixLayoutCreate, cublasLtMatrixLayoutCreate)                     \
  X(cublaslt::CublasLtApi, cublasLtMatrixLayoutDestroy, cublasLtMatrixLayoutDestroy)                   \
  X(cublaslt::CublasLtApi, cublasLtMatmulPreferenceCreate, cublasLtMatmulPreferenceCreate)             \
  X(cublaslt::CublasLtApi, cublasLtMatmulPreferenceDestroy, cublasLtMatmulPreferenceDestroy)           \
  X(cublaslt::CublasLtApi, cublasLtMatmulPreferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute) \
  X(cublaslt::CublasLtApi, cublasLtMatmulAlgoGetHeuristic, cublasLtMatmulAlgoGetHeuristic)             \
  X(cublaslt::CublasLtApi, cublasLtMatmul, cublasLtMatmul)

#define LAB_NCCL_FUNCTIONS(X)                                          \
  X(nccl::NcclApi, ncclGetVersion, ncclGetVersion)                     \
  X(nccl::NcclApi, ncclGetErrorString, ncclGetErrorString)             \
  X(nccl::NcclApi, ncclGetLastError, ncclGetLastError)                 \
  X(nccl::NcclApi, ncclGetUniqueId, ncclGetUniqueId)                   \
  X(nccl::NcclApi, ncclCommInitAll, ncclCommInitAll)                   \
  X(nccl::NcclApi, ncclCommInitRank, ncclCommInitRank)                 \
  X(nccl::NcclApi, ncclCommDestroy, ncclCommDestroy)                   \
  X(nccl::NcclApi, ncclCommAbort, ncclCommAbort)                       \
  X(nccl::NcclApi, ncclCommGetAsyncError, ncclCommGetAsyncError)       \
  X(nccl::NcclApi, ncclCommCount, ncclCommCount)                       \
  X(nccl::NcclApi, ncclCommUserRank, ncclCommUserRank)                 \
  X(nccl::NcclApi, ncclAllReduce, ncclAllReduce)                       \
  X(nccl::NcclApi, ncclGroupStart, ncclGroupStart)                     \
  X(nccl::NcclApi, ncclGroupEnd, ncclGroupEnd)

// Functions every NVML header we may meet has (Debian's is 11.8): checked against its prototypes.
#define LAB_NVML_FUNCTIONS(X)                                                                          \
  X(nvml::NvmlApi, nvmlInit, nvmlInit_v2)                                                              \
  X(nvml::NvmlApi, nvmlShutdown, nvmlShutdown)                                                         \
  X(nvml::NvmlApi, nvmlErrorString, nvmlErrorString)                                                   \
  X(nvml::NvmlApi, nvmlSystemGetDriverVersion, nvmlSystemGetDriverVersion)                             \
  X(nvml::NvmlApi, nvmlDeviceGetCount, nvmlDeviceGetCount_v2)                                          \
  X(nvml::NvmlApi, nvmlDeviceGetHandleByIndex, nvmlDeviceGetHandleByIndex_v2)                          \
  X(nvml::NvmlApi, nvmlDeviceGetHandleByPciBusId, nvmlDeviceGetHandleByPciBusId_v2)                    \
  X(nvml::NvmlApi, nvmlDeviceGetName, nvmlDeviceGetName)                                               \
  X(nvml::NvmlApi, nvmlDeviceGetPciInfo, nvmlDeviceGetPciInfo_v3)                                      \
  X(nvml::NvmlApi, nvmlDeviceGetCurrPcieLinkGeneration, nvmlDeviceGetCurrPcieLinkGeneration)           \
  X(nvml::NvmlApi, nvmlDeviceGetCurrPcieLinkWidth, nvmlDeviceGetCurrPcieLinkWidth)                     \
  X(nvml::NvmlApi, nvmlDeviceGetMaxPcieLinkGeneration, nvmlDeviceGetMaxPcieLinkGeneration)             \
  X(nvml::NvmlApi, nvmlDeviceGetMaxPcieLinkWidth, nvmlDeviceGetMaxPcieLinkWidth)                       \
  X(nvml::NvmlApi, nvmlDeviceGetEnforcedPowerLimit, nvmlDeviceGetEnforcedPowerLimit)                   \
  X(nvml::NvmlApi, nvmlDeviceGetSerial, nvmlDeviceGetSerial)                                           \
  X(nvml::NvmlApi, nvmlDeviceGetTemperature, nvmlDeviceGetTemperature)                                 \
  X(nvml::NvmlApi, nvmlDeviceGetEccMode, nvmlDeviceGetEccMode)                                         \
  X(nvml::NvmlApi, nvmlDeviceGetPersistenceMode, nvmlDeviceGetPersistenceMode)                         \
  X(nvml::NvmlApi, nvmlDeviceGetTopologyCommonAncestor, nvmlDeviceGetTopologyCommonAncestor)           \
  X(nvml::NvmlApi, nvmlDeviceGetNvLinkState, nvmlDeviceGetNvLinkState)                                 \
  X(nvml::NvmlApi, nvmlDeviceGetNvLinkRemotePciInfo, nvmlDeviceGetNvLinkRemotePciInfo_v2)              \
  X(nvml::NvmlApi, nvmlDeviceGetNvLinkRemoteDeviceType, nvmlDeviceGetNvLinkRemoteDeviceType)           \
  X(nvml::NvmlApi, nvmlDeviceGetP2PStatus, nvmlDeviceGetP2PStatus)                                     \
  X(nvml::NvmlApi, nvmlDeviceGetClockInfo, nvmlDeviceGetClockInfo)                                     \
  X(nvml::NvmlApi, nvmlDeviceGetPowerUsage, nvmlDeviceGetPowerUsage)                                   \
  X(nvml::NvmlApi, nvmlDeviceGetCpuAffinity, nvmlDeviceGetCpuAffinity)

namespace labcheck::gpu::abi_ours {
#define LAB_CAPTURE(Table, member, symbol) using member##_t = decltype(Table::member);
LAB_CUDA_FUNCTIONS(LAB_CAPTURE)
LAB_CUBLASLT_FUNCTIONS(LAB_CAPTURE)
LAB_NCCL_FUNCTIONS(LAB_CAPTURE)
LAB_NVML_FUNCTIONS(LAB_CAPTURE)
using nvmlDeviceGetTemperatureV_t = decltype(nvml::NvmlApi::nvmlDeviceGetTemperatureV);
using nvmlDeviceGetCurrentClocksEventReasons_t = decltype(nvml::NvmlApi::nvmlDeviceGetCurrentClocksEventReasons);
#undef LAB_CAPTURE
}  // namespace labcheck::gpu::abi_ours

#include <cublasLt.h>
#include <cuda.h>
#include <nccl.h>
#if __has_include(<nvml.h>)
#include <nvml.h>
#define LAB_HAVE_NVML_H 1
#endif

#include <gtest/gtest.h>

#include <iostream>

namespace labcheck::gpu {
namespace {

namespace ours = labcheck::gpu;

// Whether our type stands for theirs in a call: integers and enums of one size, the same
// floating type, pointers to the same (void and opaque structs interchangeable: their layouts,
// where we declare them, are asserted below), the same const-ness, and for functions the same
// number of parameters, each compatible, and a compatible result.
template <class A, class B>
struct Compatible {
  static constexpr bool Check() {
    if constexpr (std::is_pointer_v<A> && std::is_pointer_v<B>) {
      using PA = std::remove_pointer_t<A>;
      using PB = std::remove_pointer_t<B>;
      if constexpr (std::is_const_v<PA> != std::is_const_v<PB>) {
        return false;
      } else {
        using UA = std::remove_cv_t<PA>;
        using UB = std::remove_cv_t<PB>;
        if constexpr ((std::is_void_v<UA> || std::is_class_v<UA>) && (std::is_void_v<UB> || std::is_class_v<UB>))
          return true;
        else if constexpr (std::is_function_v<UA> || std::is_function_v<UB>)
          return false;
        else
          return Compatible<UA, UB>::value;
      }
    } else if constexpr ((std::is_integral_v<A> || std::is_enum_v<A>) && (std::is_integral_v<B> || std::is_enum_v<B>)) {
      return sizeof(A) == sizeof(B);
    } else if constexpr (std::is_floating_point_v<A> || std::is_floating_point_v<B>) {
      return std::is_same_v<A, B>;
    } else if constexpr (std::is_void_v<A> || std::is_void_v<B>) {
      return std::is_void_v<A> && std::is_void_v<B>;
    } else if constexpr (std::is_class_v<A> && std::is_class_v<B>) {
      return sizeof(A) == sizeof(B);  // passed by value: ncclUniqueId
    } else {
      return false;
    }
  }
  static constexpr bool value = Check();
};
template <class RA, class... A, class RB, class... B>
struct Compatible<RA (*)(A...), RB (*)(B...)> {
  static constexpr bool Check() {
    if constexpr (sizeof...(A) != sizeof...(B)) return false;
    else return Compatible<RA, RB>::value && (Compatible<A, B>::value && ...);
  }
  static constexpr bool value = Check();
};

#define LAB_PROTOTYPE(Table, member, symbol)                                    \
  static_assert(Compatible<abi_ours::member##_t, decltype(&::symbol)>::value, \
                #Table "::" #member " does not match the prototype of " #symbol " in NVIDIA's header");
LAB_CUDA_FUNCTIONS(LAB_PROTOTYPE)
LAB_CUBLASLT_FUNCTIONS(LAB_PROTOTYPE)
LAB_NCCL_FUNCTIONS(LAB_PROTOTYPE)
#ifdef LAB_HAVE_NVML_H
LAB_NVML_FUNCTIONS(LAB_PROTOTYPE)
#ifdef nvmlTemperature_v1  // NVML 12.6+
static_assert(Compatible<abi_ours::nvmlDeviceGetTemperatureV_t, decltype(&::nvmlDeviceGetTemperatureV)>::value);
#endif
#if NVML_API_VERSION >= 12
static_assert(Compatible<abi_ours::nvmlDeviceGetCurrentClocksEventReasons_t,
                         decltype(&::nvmlDeviceGetCurrentClocksEventReasons)>::value);
#endif
#endif

TEST(Abi, PrototypeCheckCatchesAWrongDeclaration) {
  // The check above is only worth something if it can fail.
  using WrongWidth = int (*)(unsigned long long*, int);   // cuMemAlloc with an int size
  using WrongCount = int (*)(unsigned long long*);
  using WrongConst = int (*)(unsigned long long, void*, size_t);  // cuMemcpyHtoD's src not const
  static_assert(!Compatible<WrongWidth, decltype(&::cuMemAlloc_v2)>::value);
  static_assert(!Compatible<WrongCount, decltype(&::cuMemAlloc_v2)>::value);
  static_assert(!Compatible<WrongConst, decltype(&::cuMemcpyHtoD_v2)>::value);
  static_assert(Compatible<abi_ours::cuMemAlloc_t, decltype(&::cuMemAlloc_v2)>::value);
  SUCCEED();
}

// The first file of `names` that exists under the toolkit: a real library or its stub.
std::string ToolkitLibrary(const std::vector<std::string>& names) {
  for (const char* folder : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib64/stubs", "/usr/local/cuda/targets/x86_64-linux/lib",
                             "/usr/local/cuda/targets/x86_64-linux/lib/stubs", "/usr/local/cuda/targets/sbsa-linux/lib",
                             "/usr/local/cuda/targets/sbsa-linux/lib/stubs"})
    for (const std::string& name : names)
      if (std::filesystem::exists(std::string(folder) + "/" + name)) return std::string(folder) + "/" + name;
  return "";
}

// Every name in `table` (new names and the old ones kept for older drivers) must be exported.
void ExpectExported(const std::string& file, const std::vector<SymbolBinding>& table) {
  void* library = dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  for (const SymbolBinding& row : table)
    for (const char* name : row.names) EXPECT_NE(dlsym(library, name), nullptr) << name << " is not exported by " << file;
  dlclose(library);
}

TEST(Abi, EverySymbolWeBindIsExportedByTheToolkitsLibraries) {
  cuda::CudaDriverApi cuda_api;
  cublaslt::CublasLtApi lt_api;
  nccl::NcclApi nccl_api;
  const std::string libcuda = ToolkitLibrary({"libcuda.so"});
  if (libcuda.empty()) GTEST_SKIP() << "no libcuda stub under /usr/local/cuda";
  ExpectExported(libcuda, CudaDriverSymbols(cuda_api));
  const std::string lt = ToolkitLibrary({"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"});
  if (!lt.empty()) ExpectExported(lt, CublasLtSymbols(lt_api));
  const std::string nccl = ToolkitLibrary({"libnccl.so.2", "libnccl.so"});
  if (!nccl.empty()) ExpectExported(nccl, NcclSymbols(nccl_api));
  // NVML ships with the driver, not the toolkit: the toolkit's stubs/libnvidia-ml.so where present.
  nvml::NvmlApi nvml_api;
  const std::string libnvml = ToolkitLibrary({"libnvidia-ml.so"});
  if (libnvml.empty()) {
    std::cout << "[ NOTE     ] no libnvidia-ml stub under /usr/local/cuda: NVML's symbol names not checked\n";
  } else {
    ExpectExported(libnvml, NvmlSymbols(nvml_api));
  }
}

TEST(Abi, CudaDriverTypesAndConstants) {
  static_assert(sizeof(cuda::CUresult) == sizeof(::CUresult));
  static_assert(sizeof(cuda::CUdevice) == sizeof(::CUdevice));
  static_assert(sizeof(cuda::CUdeviceptr) == sizeof(::CUdeviceptr));
  static_assert(sizeof(cuda::CUuuid) == sizeof(::CUuuid));
  EXPECT_EQ(cuda::kSuccess, CUDA_SUCCESS);
  EXPECT_EQ(cuda::kErrorInvalidValue, CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuda::kErrorOutOfMemory, CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cuda::kErrorNotInitialized, CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuda::kErrorStubLibrary, CUDA_ERROR_STUB_LIBRARY);
  EXPECT_EQ(cuda::kErrorCallRequiresNewerDriver, CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER);
  EXPECT_EQ(cuda::kErrorDeviceUnavailable, CUDA_ERROR_DEVICE_UNAVAILABLE);
  EXPECT_EQ(cuda::kErrorNoDevice, CUDA_ERROR_NO_DEVICE);
  EXPECT_EQ(cuda::kErrorInvalidDevice, CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuda::kErrorPeerAccessUnsupported, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
  EXPECT_EQ(cuda::kErrorNotReady, CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cuda::kErrorPeerAccessAlreadyEnabled, CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  EXPECT_EQ(cuda::kErrorPeerAccessNotEnabled, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  EXPECT_EQ(cuda::kErrorSystemDriverMismatch, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH);
  EXPECT_EQ(cuda::kErrorCompatNotSupportedOnDevice, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE);
  EXPECT_EQ(cuda::kErrorSystemNotReady, CUDA_ERROR_SYSTEM_NOT_READY);
  EXPECT_EQ(cuda::kErrorUnknown, CUDA_ERROR_UNKNOWN);
  // Not a CUresult: the runtime's value (driver_types.h, included by cuda_runtime.h via nccl.h).
  EXPECT_EQ(cuda::kErrorInsufficientDriver, cudaErrorInsufficientDriver);
  EXPECT_EQ(cuda::kErrorInvalidImage, CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(cuda::kErrorNoBinaryForGpu, CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(cuda::kErrorInvalidPtx, CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(cuda::kErrorUnsupportedPtxVersion, CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  EXPECT_EQ(cuda::kErrorNotFound, CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuda::kErrorIllegalAddress, CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cuda::kErrorEccUncorrectable, CUDA_ERROR_ECC_UNCORRECTABLE);
  static_assert(sizeof(cuda::CUjit_option) == sizeof(::CUjit_option));
  EXPECT_EQ(cuda::kJitErrorLogBuffer, CU_JIT_ERROR_LOG_BUFFER);
  EXPECT_EQ(cuda::kJitErrorLogBufferSizeBytes, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
  EXPECT_EQ(cuda::kAttrMaxThreadsPerMultiprocessor, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  EXPECT_EQ(cuda::kAttrMultiprocessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  EXPECT_EQ(cuda::kAttrPciBusId, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  EXPECT_EQ(cuda::kAttrPciDeviceId, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  EXPECT_EQ(cuda::kAttrL2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  EXPECT_EQ(cuda::kAttrAsyncEngineCount, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  EXPECT_EQ(cuda::kAttrPciDomainId, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  EXPECT_EQ(cuda::kAttrComputeCapabilityMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  EXPECT_EQ(cuda::kAttrComputeCapabilityMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  EXPECT_EQ(cuda::kStreamNonBlocking, static_cast<unsigned>(CU_STREAM_NON_BLOCKING));
  EXPECT_EQ(cuda::kEventDefault, static_cast<unsigned>(CU_EVENT_DEFAULT));
  EXPECT_EQ(cuda::kMemHostAllocPortable, static_cast<unsigned>(CU_MEMHOSTALLOC_PORTABLE));
}

TEST(Abi, CublasLtTypesAndConstants) {
  static_assert(sizeof(cublaslt::cublasLtMatmulAlgo_t) == sizeof(::cublasLtMatmulAlgo_t));
  static_assert(sizeof(cublaslt::cublasLtMatmulHeuristicResult_t) == sizeof(::cublasLtMatmulHeuristicResult_t));
  static_assert(offsetof(cublaslt::cublasLtMatmulHeuristicResult_t, workspaceSize) ==
                offsetof(::cublasLtMatmulHeuristicResult_t, workspaceSize));
  static_assert(offsetof(cublaslt::cublasLtMatmulHeuristicResult_t, state) == offsetof(::cublasLtMatmulHeuristicResult_t, state));
  static_assert(offsetof(cublaslt::cublasLtMatmulHeuristicResult_t, wavesCount) ==
                offsetof(::cublasLtMatmulHeuristicResult_t, wavesCount));
  static_assert(sizeof(cublaslt::cublasStatus_t) == sizeof(::cublasStatus_t));
  static_assert(sizeof(cublaslt::cudaDataType_t) == sizeof(::cudaDataType_t));
  EXPECT_EQ(cublaslt::kStatusSuccess, CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublaslt::kStatusNotInitialized, CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublaslt::kStatusArchMismatch, CUBLAS_STATUS_ARCH_MISMATCH);
  EXPECT_EQ(cublaslt::kStatusNotSupported, CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cublaslt::kR32F, CUDA_R_32F);
  EXPECT_EQ(cublaslt::kR16F, CUDA_R_16F);
  EXPECT_EQ(cublaslt::kR16BF, CUDA_R_16BF);
  EXPECT_EQ(cublaslt::kR8FE4M3, CUDA_R_8F_E4M3);
  EXPECT_EQ(cublaslt::kCompute32F, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(cublaslt::kCompute32FFastTF32, CUBLAS_COMPUTE_32F_FAST_TF32);
  EXPECT_EQ(cublaslt::kOpN, CUBLAS_OP_N);
  EXPECT_EQ(cublaslt::kOpT, CUBLAS_OP_T);
  EXPECT_EQ(cublaslt::kMatmulDescTransA, CUBLASLT_MATMUL_DESC_TRANSA);
  EXPECT_EQ(cublaslt::kMatmulDescTransB, CUBLASLT_MATMUL_DESC_TRANSB);
  EXPECT_EQ(cublaslt::kMatmulDescFastAccum, CUBLASLT_MATMUL_DESC_FAST_ACCUM);
  EXPECT_EQ(cublaslt::kMatmulPrefMaxWorkspaceBytes, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
}

TEST(Abi, NcclTypesAndConstants) {
  static_assert(sizeof(nccl::ncclUniqueId) == sizeof(::ncclUniqueId));
  static_assert(sizeof(nccl::ncclResult_t) == sizeof(::ncclResult_t));
  EXPECT_EQ(nccl::kSuccess, ncclSuccess);
  EXPECT_EQ(nccl::kInProgress, ncclInProgress);
  EXPECT_EQ(nccl::kFloat32, ncclFloat32);
  EXPECT_EQ(nccl::kSum, ncclSum);
}

#ifdef LAB_HAVE_NVML_H
TEST(Abi, NvmlTypesAndConstants) {
  static_assert(sizeof(nvml::nvmlPciInfo_t) == sizeof(::nvmlPciInfo_t));
  static_assert(offsetof(nvml::nvmlPciInfo_t, busId) == offsetof(::nvmlPciInfo_t, busId));
  EXPECT_EQ(nvml::kSuccess, NVML_SUCCESS);
  EXPECT_EQ(nvml::kErrorNotSupported, NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(nvml::kErrorDriverNotLoaded, NVML_ERROR_DRIVER_NOT_LOADED);
  EXPECT_EQ(nvml::kErrorLibRmVersionMismatch, NVML_ERROR_LIB_RM_VERSION_MISMATCH);
  EXPECT_EQ(nvml::kTopologySingle, NVML_TOPOLOGY_SINGLE);
  EXPECT_EQ(nvml::kTopologyMultiple, NVML_TOPOLOGY_MULTIPLE);
  EXPECT_EQ(nvml::kTopologyHostBridge, NVML_TOPOLOGY_HOSTBRIDGE);
  EXPECT_EQ(nvml::kTopologyNode, NVML_TOPOLOGY_NODE);
  EXPECT_EQ(nvml::kTopologySystem, NVML_TOPOLOGY_SYSTEM);
  EXPECT_EQ(nvml::kTemperatureGpu, NVML_TEMPERATURE_GPU);
  EXPECT_EQ(nvml::kClockSm, NVML_CLOCK_SM);
  EXPECT_EQ(nvml::kFeatureEnabled, NVML_FEATURE_ENABLED);
  // At least the header's: NVML 11.8 says 18, 13.3 says 36; a driver answers "invalid" past its own.
  EXPECT_GE(nvml::kNvLinkMaxLinks, static_cast<unsigned>(NVML_NVLINK_MAX_LINKS));
  EXPECT_EQ(nvml::kNvLinkDeviceTypeGpu, NVML_NVLINK_DEVICE_TYPE_GPU);
  EXPECT_EQ(nvml::kNvLinkDeviceTypeSwitch, NVML_NVLINK_DEVICE_TYPE_SWITCH);
  EXPECT_EQ(nvml::kNvLinkDeviceTypeUnknown, NVML_NVLINK_DEVICE_TYPE_UNKNOWN);
  EXPECT_EQ(nvml::kP2PCapsIndexNvLink, NVML_P2P_CAPS_INDEX_NVLINK);
  EXPECT_EQ(nvml::kP2PStatusOk, NVML_P2P_STATUS_OK);
  static_assert(sizeof(nvml::nvmlIntNvLinkDeviceType_t) == sizeof(::nvmlIntNvLinkDeviceType_t));
#ifdef nvmlTemperature_v1
  static_assert(sizeof(nvml::nvmlTemperature_t) == sizeof(::nvmlTemperature_t));
  static_assert(offsetof(nvml::nvmlTemperature_t, temperature) == offsetof(::nvmlTemperature_t, temperature));
  EXPECT_EQ(nvml::kTemperatureV1, static_cast<unsigned>(nvmlTemperature_v1));
#else
  std::cout << "[ NOTE     ] this nvml.h (NVML_API_VERSION " << NVML_API_VERSION
            << ") predates nvmlTemperature_t: its layout is not checked\n";
#endif
  EXPECT_EQ(nvml::kClockEventSwPowerCap, static_cast<unsigned long long>(nvmlClocksThrottleReasonSwPowerCap));
  EXPECT_EQ(nvml::kClockEventHwSlowdown, static_cast<unsigned long long>(nvmlClocksThrottleReasonHwSlowdown));
  EXPECT_EQ(nvml::kClockEventSwThermalSlowdown, static_cast<unsigned long long>(nvmlClocksThrottleReasonSwThermalSlowdown));
  EXPECT_EQ(nvml::kClockEventHwThermalSlowdown, static_cast<unsigned long long>(nvmlClocksThrottleReasonHwThermalSlowdown));
  EXPECT_EQ(nvml::kClockEventHwPowerBrakeSlowdown,
            static_cast<unsigned long long>(nvmlClocksThrottleReasonHwPowerBrakeSlowdown));
}
#else
TEST(Abi, NvmlTypesAndConstants) {
  GTEST_SKIP() << "nvml.h not found: the CUDA toolkit here has none; scripts/install-deps.sh --with-tests unpacks "
                  "Debian non-free's libnvidia-ml-dev into /opt/lab_check/nvml";
}
#endif

}  // namespace
}  // namespace labcheck::gpu

// Our declarations against NVIDIA's own headers: every constant, enum value and struct layout we
// declare must equal the official one. Built only where the headers are installed (see
// CMakeLists.txt); our headers come first so cuda.h's _v2 macros never touch them.
#include "gpu/nvidia/cublaslt_api.h"
#include "gpu/nvidia/cuda_api.h"
#include "gpu/nvidia/nccl_api.h"
#include "gpu/nvidia/nvml_api.h"

#include <cstddef>

#include <cublasLt.h>
#include <cuda.h>
#include <nccl.h>
#if __has_include(<nvml.h>)
#include <nvml.h>
#define LAB_HAVE_NVML_H 1
#endif

#include <gtest/gtest.h>

namespace labcheck::gpu {
namespace {

namespace ours = labcheck::gpu;

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
  EXPECT_EQ(nvml::kTopologySingle, NVML_TOPOLOGY_SINGLE);
  EXPECT_EQ(nvml::kTopologyMultiple, NVML_TOPOLOGY_MULTIPLE);
  EXPECT_EQ(nvml::kTopologyHostBridge, NVML_TOPOLOGY_HOSTBRIDGE);
  EXPECT_EQ(nvml::kTopologyNode, NVML_TOPOLOGY_NODE);
  EXPECT_EQ(nvml::kTopologySystem, NVML_TOPOLOGY_SYSTEM);
  EXPECT_EQ(nvml::kTemperatureGpu, NVML_TEMPERATURE_GPU);
  EXPECT_EQ(nvml::kClockSm, NVML_CLOCK_SM);
  EXPECT_EQ(nvml::kFeatureEnabled, NVML_FEATURE_ENABLED);
  EXPECT_EQ(nvml::kNvLinkMaxLinks, static_cast<unsigned>(NVML_NVLINK_MAX_LINKS));
  EXPECT_EQ(nvml::kClockEventSwPowerCap, static_cast<unsigned long long>(nvmlClocksThrottleReasonSwPowerCap));
  EXPECT_EQ(nvml::kClockEventHwSlowdown, static_cast<unsigned long long>(nvmlClocksThrottleReasonHwSlowdown));
  EXPECT_EQ(nvml::kClockEventSwThermalSlowdown, static_cast<unsigned long long>(nvmlClocksThrottleReasonSwThermalSlowdown));
  EXPECT_EQ(nvml::kClockEventHwThermalSlowdown, static_cast<unsigned long long>(nvmlClocksThrottleReasonHwThermalSlowdown));
  EXPECT_EQ(nvml::kClockEventHwPowerBrakeSlowdown,
            static_cast<unsigned long long>(nvmlClocksThrottleReasonHwPowerBrakeSlowdown));
}
#else
TEST(Abi, NvmlTypesAndConstants) { GTEST_SKIP() << "nvml.h is not installed here (cuda-nvml-dev)"; }
#endif

}  // namespace
}  // namespace labcheck::gpu

// Our declarations of the cuBLASLt functions and constants lab_check's matmul uses (cublasLt.h,
// cublas_api.h, library_types.h). Checked against the real headers by tests/gpu/abi_test.cpp.
#pragma once
#include <cstddef>
#include <cstdint>

#include "gpu/nvidia/cuda_api.h"

namespace labcheck::gpu::cublaslt {

using cublasStatus_t = int;
using cudaDataType_t = int;
using cublasComputeType_t = int;
using cublasOperation_t = int;
struct cublasLtContext;
using cublasLtHandle_t = cublasLtContext*;
using cublasLtMatmulDesc_t = void*;        // pointers to opaque descriptors
using cublasLtMatrixLayout_t = void*;
using cublasLtMatmulPreference_t = void*;

struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

inline constexpr cublasStatus_t kStatusSuccess = 0;
inline constexpr cublasStatus_t kStatusNotInitialized = 1;
inline constexpr cublasStatus_t kStatusArchMismatch = 8;
inline constexpr cublasStatus_t kStatusNotSupported = 15;

inline constexpr cudaDataType_t kR32F = 0;      // CUDA_R_32F
inline constexpr cudaDataType_t kR16F = 2;      // CUDA_R_16F
inline constexpr cudaDataType_t kR16BF = 14;    // CUDA_R_16BF
inline constexpr cudaDataType_t kR8FE4M3 = 28;  // CUDA_R_8F_E4M3

inline constexpr cublasComputeType_t kCompute32F = 68;          // CUBLAS_COMPUTE_32F
inline constexpr cublasComputeType_t kCompute32FFastTF32 = 77;  // CUBLAS_COMPUTE_32F_FAST_TF32

inline constexpr cublasOperation_t kOpN = 0;
inline constexpr cublasOperation_t kOpT = 1;

inline constexpr int kMatmulDescTransA = 3;             // CUBLASLT_MATMUL_DESC_TRANSA
inline constexpr int kMatmulDescTransB = 4;             // CUBLASLT_MATMUL_DESC_TRANSB
inline constexpr int kMatmulDescFastAccum = 25;         // CUBLASLT_MATMUL_DESC_FAST_ACCUM, an int8_t
inline constexpr int kMatmulPrefMaxWorkspaceBytes = 1;  // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES

struct CublasLtApi {
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t* handle) = nullptr;
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t handle) = nullptr;
  size_t (*cublasLtGetVersion)() = nullptr;
  size_t (*cublasLtGetCudartVersion)() = nullptr;
  const char* (*cublasLtGetStatusName)(cublasStatus_t status) = nullptr;  // optional
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                             cudaDataType_t scale) = nullptr;
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t desc) = nullptr;
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(cublasLtMatmulDesc_t desc, int attribute,
                                                   const void* value, size_t size) = nullptr;
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t* layout, cudaDataType_t type,
                                               uint64_t rows, uint64_t cols, int64_t ld) = nullptr;
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t layout) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(cublasLtMatmulPreference_t* pref) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(cublasLtMatmulPreference_t pref) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(cublasLtMatmulPreference_t pref, int attribute,
                                                         const void* value, size_t size) = nullptr;
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(
      cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
      cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t pref, int requested,
      cublasLtMatmulHeuristicResult_t* results, int* returned) = nullptr;
  cublasStatus_t (*cublasLtMatmul)(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                                   const void* a, cublasLtMatrixLayout_t a_layout, const void* b,
                                   cublasLtMatrixLayout_t b_layout, const void* beta, const void* c,
                                   cublasLtMatrixLayout_t c_layout, void* d, cublasLtMatrixLayout_t d_layout,
                                   const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                                   cuda::CUstream stream) = nullptr;
};

}  // namespace labcheck::gpu::cublaslt

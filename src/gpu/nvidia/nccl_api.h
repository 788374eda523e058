// Our declarations of the NCCL (libnccl.so.2) functions the all-reduce uses (nccl.h). Checked
// against the real header by tests/gpu/abi_test.cpp.
#pragma once
#include <cstddef>

#include "gpu/nvidia/cuda_api.h"

namespace labcheck::gpu::nccl {

using ncclResult_t = int;
using ncclDataType_t = int;
using ncclRedOp_t = int;
struct ncclComm;
using ncclComm_t = ncclComm*;
struct ncclUniqueId {
  char internal[128];  // NCCL_UNIQUE_ID_BYTES
};

inline constexpr ncclResult_t kSuccess = 0;
inline constexpr ncclResult_t kInProgress = 7;
inline constexpr ncclDataType_t kInt8 = 0;  // ncclInt8 (ncclChar)
inline constexpr ncclDataType_t kFloat32 = 7;
inline constexpr ncclRedOp_t kSum = 0;

struct NcclApi {
  ncclResult_t (*ncclGetVersion)(int* version) = nullptr;
  const char* (*ncclGetErrorString)(ncclResult_t result) = nullptr;
  const char* (*ncclGetLastError)(ncclComm_t comm) = nullptr;  // optional (2.13+)
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId* id) = nullptr;
  ncclResult_t (*ncclCommInitAll)(ncclComm_t* comms, int count, const int* devices) = nullptr;
  // For one rank per process (MPI or torchrun bootstrap); not used by the single-process check.
  ncclResult_t (*ncclCommInitRank)(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank) = nullptr;
  ncclResult_t (*ncclCommDestroy)(ncclComm_t comm) = nullptr;
  ncclResult_t (*ncclCommAbort)(ncclComm_t comm) = nullptr;
  ncclResult_t (*ncclCommGetAsyncError)(ncclComm_t comm, ncclResult_t* error) = nullptr;
  ncclResult_t (*ncclCommCount)(ncclComm_t comm, int* count) = nullptr;
  ncclResult_t (*ncclCommUserRank)(ncclComm_t comm, int* rank) = nullptr;
  ncclResult_t (*ncclAllReduce)(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                                ncclComm_t comm, cuda::CUstream stream) = nullptr;
  // Optional here (every NCCL 2.x has it): the multi-node run gathers node keys, ids and the
  // per-rank report blocks with it (src/gpu/jobs/rank_comm.h).
  ncclResult_t (*ncclAllGather)(const void* send, void* recv, size_t send_count, ncclDataType_t type, ncclComm_t comm,
                                cuda::CUstream stream) = nullptr;
  ncclResult_t (*ncclGroupStart)() = nullptr;
  ncclResult_t (*ncclGroupEnd)() = nullptr;
};

}  // namespace labcheck::gpu::nccl

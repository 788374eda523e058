// One rank per process (docs/multi-node.md): this process's GPU joins a communicator of `world`
// ranks through ncclGetUniqueId + ncclCommInitRank with NCCL_COMM_ID already in the environment
// (every rank gets the same id from it; rank 0 starts NCCL's bootstrap root), and small fixed-size
// byte blocks are exchanged with ncclAllGather (node keys, unique ids, the per-rank report).
// Every wait polls the stream and ncclCommGetAsyncError, so a peer that dies turns into an error
// after `timeout_s`, not a process stuck in the driver.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/bench/device_resources.h"
#include "gpu/collective/allreduce_bench.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/nvidia/nccl_library.h"

namespace labcheck::gpu {

// This process's rank: its context, stream and, once joined, its communicator. Reuses LocalRank
// so that RunAllReduceSweep drives it unchanged.
struct ProcessRank {
  RankGroup group;  // exactly one local rank
  LocalRank& self() { return group.local.front(); }
};

// Opens the GPU `device` (the runtime's context, kept for the whole job) and its stream; no
// communicator yet.
Result<ProcessRank> OpenProcessRank(GpuRuntime& runtime, int device, int rank, int world);

// ncclCommInitRank with `id` (from ncclGetUniqueId); fills group.world_size and the rank's comm.
Status JoinCommunicator(const Nccl& nccl, ProcessRank& process, const nccl::ncclUniqueId& id, int rank, int world);

// Every rank contributes `block_bytes` bytes; every rank receives world × block_bytes, in rank order.
// ncclAllGather where the library has it, else an all-reduce that computes the same. When the
// exchange stalls or NCCL reports an error, the communicator is aborted (ncclCommAbort: a
// destroy or a synchronise would wait for the stuck collective) and self().comm becomes null.
Result<std::vector<char>> AllGatherBlocks(const CudaDriver& driver, const Nccl& nccl, ProcessRank& process,
                                          const std::vector<char>& mine, size_t block_bytes, double timeout_s);

// Text ↔ a NUL-padded block (an error when the text does not fit).
Result<std::vector<char>> TextBlock(const std::string& text, size_t block_bytes);
std::string BlockText(const std::vector<char>& blocks, size_t index, size_t block_bytes);

}  // namespace labcheck::gpu

// The all-reduce sweep, independent of how the ranks came to be: it drives whichever ranks this
// process owns (all local GPUs through ncclCommInitAll today; one rank per process bootstrapped by
// MPI or torchrun's store later) and never asks how the communicators were made. Two timings of
// the same `iterations` back-to-back collectives: CUDA events on each rank's stream, the slowest
// rank's time (what the GPUs spent, host polling excluded), and, as nccl-tests' all_reduce_perf
// counts, this process's host clock from the first enqueue until every local stream is seen done
// (launch overheads and the wait included; nccl-tests then averages it over its processes).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/bench/device_resources.h"
#include "gpu/nvidia/nccl_library.h"

namespace labcheck::gpu {

struct LocalRank {
  int rank = 0;  // global rank in the communicator
  std::shared_ptr<DeviceContext> context;
  nccl::ncclComm_t comm = nullptr;
  Stream stream;
  DeviceBuffer send, receive;
};

// The ranks one process drives, and the size of the whole communicator.
struct RankGroup {
  int world_size = 0;
  std::vector<LocalRank> local;
};

struct SweepPlan {
  std::vector<size_t> sizes_bytes;
  int warmup = 5;
  int iterations = 20;
  double stall_timeout_s = 30;  // one size making no progress this long counts as a hang
};

struct SizeResult {
  size_t bytes = 0;
  double time_ms = 0;                // CUDA events, slowest local rank, per iteration
  double algbw_gbps = 0;
  std::optional<double> busbw_gbps;  // none for one rank
  double host_time_us = 0;           // host clock of this process, per iteration
  bool correct = false;
};

struct SweepResult {
  std::vector<SizeResult> sizes;
  bool hung = false;           // a size stalled; the communicators were aborted
  std::string nccl_error;      // an NCCL call or asynchronous error, as NCCL words it
  bool wrong_sum = false;
};

// Allocates buffers of the largest size on every local rank and fills the inputs.
Status PrepareRanks(const CudaDriver& driver, RankGroup& group, size_t max_bytes);

// The least free memory over the ranks (cuMemGetInfo in each rank's context): what caps the sweep.
Result<size_t> SmallestFreeBytes(const CudaDriver& driver, const RankGroup& group);

// Runs every size; stops at the first hang or NCCL error (and says which). The communicators of
// a sweep that stalled or failed are aborted here (ncclCommAbort; comm set to null), never
// destroyed: ncclCommDestroy waits for the collective that is stuck.
SweepResult RunAllReduceSweep(const CudaDriver& driver, const Nccl& nccl, RankGroup& group, const SweepPlan& plan);

}  // namespace labcheck::gpu

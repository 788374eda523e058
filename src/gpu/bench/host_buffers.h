// Host memory for the copy benchmarks, made once per job and lent out again. Pinning 256 MiB takes
// tens of milliseconds on a real machine (cuMemHostAlloc locks every page), and a fresh pageable
// buffer has to be touched page by page before it can be timed; a job that measures four kinds of
// copy on each of several GPUs would otherwise pay that two dozen times. Pinned buffers are
// portable (CU_MEMHOSTALLOC_PORTABLE), so one serves every GPU's context on the same NUMA node:
// buffers are kept per node (per CPU set they were made on), since a GPU copying from another
// socket's memory crosses the link between the sockets (bench/numa_placement.h). Thread-safe: the
// threads of an "all at once" run each lease their own.
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/bench/device_resources.h"

namespace labcheck::gpu {

enum class HostMemory { Pinned, Pageable };

class HostBufferPool {
 public:
  explicit HostBufferPool(const CudaDriver& driver) : driver_(driver) {}

  // One buffer, the pool's until the lease ends. Every byte was written once (non-zero), so no
  // page fault falls inside a timed copy.
  class Lease {
   public:
    Lease(Lease&& other) noexcept : pool_(other.pool_), slot_(other.slot_) { other.pool_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    void* get() const;

   private:
    friend class HostBufferPool;
    Lease(HostBufferPool* pool, size_t slot) : pool_(pool), slot_(slot) {}
    HostBufferPool* pool_;
    size_t slot_;
  };

  // A buffer of `memory` and `bytes` made where `place` says ("cpus 0-3"; "" for anywhere). A new one
  // is made by the calling thread, whose first touch decides where its pages go: call it while
  // pinned to that node's CPUs (ScopedCpuAffinity, PlacementKey in bench/numa_placement.h).
  Result<Lease> Take(HostMemory memory, size_t bytes, const std::string& place = {});
  size_t allocations() const;  // buffers made so far (tests: reuse is real)

 private:
  struct Slot {
    HostMemory memory;
    size_t bytes;
    std::string place;
    PinnedBuffer pinned;
    std::unique_ptr<char[]> pageable;
    bool leased;
  };
  const CudaDriver& driver_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace labcheck::gpu

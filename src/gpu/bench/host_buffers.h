// Host memory for the copy benchmarks, made once per job and lent out again. Pinning 256 MiB takes
// tens of milliseconds on a real machine (cuMemHostAlloc locks every page), and a fresh pageable
// buffer has to be touched page by page before it can be timed; a job that measures four kinds of
// copy on each of several GPUs would otherwise pay that two dozen times. Pinned buffers are
// portable (CU_MEMHOSTALLOC_PORTABLE), so one serves every GPU's context. Thread-safe: the threads
// of an "all at once" run each lease their own.
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
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

  Result<Lease> Take(HostMemory memory, size_t bytes);
  size_t allocations() const;  // buffers made so far (tests: reuse is real)

 private:
  struct Slot {
    HostMemory memory;
    size_t bytes;
    PinnedBuffer pinned;
    std::unique_ptr<char[]> pageable;
    bool leased;
  };
  const CudaDriver& driver_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace labcheck::gpu

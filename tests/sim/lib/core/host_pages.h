// Anonymous host memory for the simulator's big buffers: device memory, pinned host memory and
// the staged bytes of host-to-device copies.
//
// Mapped with MAP_NORESERVE, so a 32 GiB card costs only the pages touched, and advised for
// transparent huge pages (MADV_HUGEPAGE; the kernel's default here is "madvise"), so touching
// 256 MiB costs 128 page faults instead of 65536. In a VM a fault costs microseconds: with 4 KiB
// pages the faults were a third of a simulated matmul run's wall time. Where the kernel has no
// huge pages the advice is ignored and nothing else changes.
#pragma once
#include <cstddef>

namespace nvsim {

// nullptr when the mapping fails.
void* MapHostPages(size_t bytes);
void UnmapHostPages(void* pages, size_t bytes);

// A copy of host bytes in its own mapping, immutable once made: the bytes of a host-to-device
// copy, in flight and then as what device memory holds where they landed (core/device_memory.h).
// The mapping of one that is gone (from 1 MiB up) is kept for the next instead of unmapped, up to
// 1 GiB in all: its pages are already there, and a fresh page is zeroed by the kernel (about 1 s
// per GB in the CI's VM) while benchmarks stage bytes of one size again and again (a copy check
// per GPU and kind of copy, the matmul inputs per precision and then for all GPUs at once).
class StagedBytes {
 public:
  StagedBytes(const void* from, size_t bytes);
  StagedBytes(const StagedBytes&) = delete;
  StagedBytes& operator=(const StagedBytes&) = delete;
  ~StagedBytes();

  const char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;  // the mapping's length: a kept one may be larger than size_
};

}  // namespace nvsim

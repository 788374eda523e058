// Device memory of the simulated GPUs: real host memory (mmap with MAP_NORESERVE, so a 32 GiB
// "card" costs only the pages touched), addressed by its host address as the CUdeviceptr.
//
// Work too big for two CPU cores (a 8192³ matmul, a 1 GiB all-reduce repeated 25 times, a 1 GiB
// device copy) is recorded instead of done: the destination range gets a Producer, and a read
// computes exactly the bytes it touches. Results are the same as if computed eagerly because
//   - a write to a range first drops the producers it covers and cuts those it covers in part
//     down to their parts outside it (each still computing its own bytes), and
//   - a write to an allocation that a pending producer reads from materialises that producer
//     first (our benchmarks never do this with a huge one);
//   - inputs stay mapped while a producer refers to them, even after cuMemFree.
//
// A synchronous cuMemcpyHtoD from pageable memory returns once its bytes are in the driver's
// staging buffer; the DMA that puts them in device memory is ordered on the legacy stream only
// (https://docs.nvidia.com/cuda/cuda-driver-api/api-sync-behavior.html). The sim keeps those
// bytes in flight on the destination (WriteAfterLegacyDma): device memory keeps its old bytes for
// every reader until something synchronises with the legacy stream that queued the copy
// (LandPendingWrites: cuCtxSynchronize, cuStreamSynchronize on it, work on it or on a blocking
// stream, a synchronous copy). So work on a CU_STREAM_NON_BLOCKING stream that is not ordered
// after the copy reads the stale bytes, as it may on a real GPU. A direct write to a range with
// bytes in flight lands them first (the later write wins, as in program order).
//
// Staged bytes are immutable and shared: a host-to-device copy of 1 MiB or more whose bytes equal
// ones already staged (the same matmul inputs uploaded to each card, a copy benchmark's repeats)
// takes the staged copy already made instead of another, and its bytes stay there as the range's
// producer instead of being written into device memory. The product sees the same bytes; the sim
// touches one copy of them, not one per card and repeat (in this VM a fresh page costs about 1 s
// per GB, and the kernel zeroing pages was 62 % of a simulated 4-GPU `gpu.matmul`).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/host_pages.h"

namespace nvsim {

struct Allocation;

// Computes bytes [offset, offset + bytes) of the range it was recorded on, into `out`.
class Producer {
 public:
  virtual ~Producer() = default;
  virtual void Produce(size_t offset, void* out, size_t bytes) const = 0;
  virtual bool ReadsFrom(const Allocation* allocation) const = 0;
};

struct Allocation {
  uintptr_t base = 0;
  size_t size = 0;
  int device = -1;  // profile index; -1 for pinned host memory
  uint64_t physical = 0;  // where it sits in the card's memory (core/physical_memory.h)
  // A range whose bytes `producer` computes: byte i of the range is the producer's byte from + i
  // (a range split by a smaller write keeps computing its own bytes, core/device_memory.cpp).
  struct Lazy {
    size_t offset, bytes;
    std::shared_ptr<const Producer> producer;
    size_t from = 0;  // where in the producer's range this piece starts (a range cut by a write)
  };
  std::vector<Lazy> lazy;
  // Staged pageable copies not yet landed, oldest first; `legacy_device` is the device whose
  // legacy stream queued the DMA.
  struct InFlight {
    size_t offset;
    std::shared_ptr<const StagedBytes> bytes;
    int legacy_device;
  };
  std::vector<InFlight> in_flight;
  ~Allocation();
};

using AllocationRef = std::shared_ptr<Allocation>;

// A place in device memory: the allocation and the offset into it.
struct DevicePlace {
  AllocationRef allocation;
  size_t offset = 0;
};

// Maps `bytes` for `device` (-1: pinned host memory). Null when mmap fails.
AllocationRef MapMemory(int device, size_t bytes);
// Registers / forgets an allocation under its base address.
void Register(const AllocationRef& allocation);
bool Unregister(uintptr_t base);
// The allocation holding [address, address + bytes), or an empty place.
DevicePlace Find(uintptr_t address, size_t bytes);

// Copies bytes out of device memory, computing recorded work on the way.
void ReadBytes(const DevicePlace& from, void* out, size_t bytes);
// Writes bytes into device memory (from host memory or another place).
void WriteBytes(const DevicePlace& to, const void* data, size_t bytes);
// The same for a host-to-device copy: from 1 MiB up, as a staged copy shared with equal uploads.
void WriteFromHost(const DevicePlace& to, const void* data, size_t bytes);
// Records `producer` as the content of [to, to + bytes).
void WriteLazy(const DevicePlace& to, size_t bytes, std::shared_ptr<const Producer> producer);
// Stages `bytes` for `to`; they reach device memory at LandPendingWrites(legacy_device).
void WriteAfterLegacyDma(const DevicePlace& to, const void* data, size_t bytes, int legacy_device);
// The legacy stream of `device` was synchronised with: every copy it queued lands, in order.
void LandPendingWrites(int device);

// Called before every write into device memory (the memory test's cell map, core/pattern_memory.h,
// learns of writes that are not its own kernels': a self-test's flipped word, a memset). One.
using WriteObserver = void (*)(const Allocation& allocation, size_t offset, size_t bytes);
void SetWriteObserver(WriteObserver observer);
// The lock every function here takes (recursive): held by a caller that reads and writes in one step.
std::recursive_mutex& MemoryLock();

// Async copies between pinned host memory and device memory (cuMemcpyHtoDAsync and
// cuMemcpyDtoHAsync from cuMemHostAlloc'd memory) are DMA that runs after the call returns: until
// the program has seen such a copy done it may neither change the bytes being sent nor read the
// bytes being received (CUDA Driver API, "API synchronization behavior": the copy is
// asynchronous; https://docs.nvidia.com/cuda/cuda-driver-api/api-sync-behavior.html). The sim
// moves their bytes late too: at the next point where anything could tell — a wait for, or a
// query of, any stream or event, any other access to device memory, freeing memory. A queued copy
// of the same shape as one still queued (the same direction, host range and device range)
// replaces it: a benchmark's back-to-back repeats move their bytes once, not once per repeat (each
// was a 256 MiB memcmp or memcpy: most of a simulated gpu.host_device_copy's time). A copy whose
// ranges conflict with a queued one's (bytes one of them writes) lands the queue first.
void QueueDmaToDevice(const DevicePlace& to, const void* host, size_t bytes);
void QueueDmaToHost(const DevicePlace& from, void* host, size_t bytes);
// Moves the bytes of every queued copy, in the order they were queued. Cheap when none is.
void LandQueuedDma();

// Ready-made producers.
std::shared_ptr<const Producer> CopyOf(const DevicePlace& source);
std::shared_ptr<const Producer> Fill32(uint32_t value);

}  // namespace nvsim

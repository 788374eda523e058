// A model of PyTorch's CUDA caching allocator (DeviceCachingAllocator in
// c10/cuda/CUDACachingAllocator.cpp, read at pytorch/pytorch 001074d2), for replaying the
// allocations of a training step without a GPU. It keeps the allocator's block policy, step for
// step:
//   - every request is rounded to 512 bytes (or to a power-of-two division, roundup_power2_divisions);
//   - requests up to 1 MiB come from the small pool, packed in 2 MiB segments; larger ones from the
//     large pool: under 10 MiB in 20 MiB segments, from 10 MiB up in a segment of their own size
//     rounded to 2 MiB;
//   - a pool per stream: a freed block serves only later requests of the stream that allocated it;
//   - best fit: the smallest free block of the stream that holds the request, lowest address first;
//     blocks of max_split_size or more are never split and serve only requests within
//     max_non_split_rounding of their size;
//   - a block larger than the request is split when the rest is 512 bytes or more (small pool) or
//     more than 1 MiB (large pool, under max_split_size); freed neighbours of one segment coalesce;
//   - frees of blocks used on other streams (record_stream) wait for those streams' events;
//   - when cudaMalloc would fail, it frees cached oversize blocks (with max_split_size), then every
//     cached segment that is wholly free, synchronising pending events, and retries; only then OOM;
//   - expandable_segments:True grows one segment per stream and pool in pages of 2 MiB (small) or
//     20 MiB (large) and unmaps free pages on the retry.
// What it leaves out: CUDA graph pools, MemPools, the cudaMallocAsync backend, per-process memory
// fractions (and the garbage collection that acts only under one), IPC. Addresses are a model's:
// segments get increasing addresses, which only breaks ties between equal free blocks.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "calc/allocator/alloc_conf.h"
#include "calc/allocator/allocator_constants.h"

namespace labcheck::calc::allocator {

using StreamId = int;

struct Block;
struct BlockPool;
struct ExpandableSegment;

// torch.cuda.memory_stats()'s "all" figures the replay reads, in bytes; peaks since the last reset.
struct AllocatorStats {
  uint64_t allocated = 0, allocated_peak = 0;  // allocated_bytes: sizes of blocks in use
  uint64_t reserved = 0, reserved_peak = 0;    // reserved_bytes: segments held (cudaMalloc'd or mapped)
  uint64_t active = 0, active_peak = 0;        // active_bytes: in use or waiting for another stream
  uint64_t requested = 0, requested_peak = 0;  // requested_bytes: sizes as asked, before rounding
  int64_t alloc_retries = 0;                   // num_alloc_retries: the cache was freed to retry
  int64_t ooms = 0;
  int64_t device_allocs = 0, device_frees = 0; // cudaMalloc / cudaFree (map / unmap) calls
};

// torch.cuda.memory_snapshot()'s view of one segment.
struct BlockInfo {
  uint64_t size = 0;
  uint64_t requested_size = 0;
  bool allocated = false;
  bool active = false;
};
struct SegmentInfo {
  uint64_t address = 0;
  uint64_t total_size = 0;
  StreamId stream = 0;
  bool is_large = true;
  bool is_expandable = false;
  uint64_t allocated_size = 0;
  std::vector<BlockInfo> blocks;
};

class CachingAllocator {
 public:
  // `device_limit` is what cudaMalloc can hand out in all (the card's memory less the CUDA context
  // and everything else outside the allocator); `total_memory` sizes expandable segments' address
  // space as the card's totalGlobalMem does.
  CachingAllocator(const AllocatorConfig& config, const AllocatorConstants& constants, uint64_t device_limit, uint64_t total_memory);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // torch's malloc: a block of at least `size` bytes on `stream`, or nullptr when the allocator
  // would raise OutOfMemoryError (after freeing its cache and retrying).
  Block* Malloc(uint64_t size, StreamId stream);
  void Free(Block* block);
  // Tensor.record_stream: the block is used on `stream` too, so its free waits for that stream.
  void RecordStream(Block* block, StreamId stream);
  // The GPU's progress, which the allocator only sees through events: a marker on `stream` (its
  // sequence number), and the point up to which a stream's work is known to be done (the CPU
  // synchronised on an event, or on the device).
  uint64_t RecordEvent(StreamId stream);
  void Synchronize(StreamId stream, uint64_t up_to);
  void SynchronizeAll();
  // torch.cuda.empty_cache(): every cached segment that is wholly free goes back to the driver.
  void EmptyCache();
  void ResetPeakStats();

  const AllocatorStats& stats() const { return stats_; }
  std::vector<SegmentInfo> Snapshot() const;
  uint64_t BlockSize(const Block* block) const;

 private:
  struct Request;
  BlockPool& PoolFor(uint64_t size);
  uint64_t RoundSize(uint64_t size) const;
  uint64_t AllocationSize(uint64_t size) const;
  bool ShouldSplit(const Block* block, uint64_t size) const;
  bool GetFreeBlock(Request& r);
  bool AllocBlock(Request& r);
  bool ReleaseAvailableCachedBlocks(const Request& r);
  void ReleaseCachedBlocks();
  void ReleaseBlocks(BlockPool& pool);
  void ReleaseBlock(Block* block);
  Block* AllocFoundBlock(Request& r, uint64_t orig_size);
  void FreeBlock(Block* block);
  uint64_t TryMergeBlocks(Block* dst, Block* src, BlockPool& pool);
  void ProcessEvents();
  void SynchronizeAndFreeEvents();
  // expandable_segments (caching_allocator_expandable.cpp)
  Block* FindExpandableBlock(StreamId stream, BlockPool& pool, uint64_t size);
  bool MapBlock(Block* to_map, uint64_t size);
  Block* TryAllocateExpandableBlock(StreamId stream, BlockPool& pool, uint64_t size);
  void UnmapBlock(Block* block);
  void ReleaseExpandableSegment(Block* block);
  void AddReserved(uint64_t bytes);
  void SubReserved(uint64_t bytes);
  // Where PyTorch has new Block and delete: the model reuses its records, which keeps a replay of
  // hundreds of thousands of events fast (no heap call per split and merge).
  Block* NewBlock();
  void DeleteBlock(Block* block);

  AllocatorConfig config_;
  AllocatorConstants k_;
  uint64_t device_limit_;
  uint64_t total_memory_;
  std::unique_ptr<BlockPool> large_;
  std::unique_ptr<BlockPool> small_;
  std::vector<std::unique_ptr<Block>> blocks_;  // every record; the live ones are PyTorch's blocks
  std::vector<Block*> spare_;                    // records of deleted blocks, to be reused
  std::vector<std::unique_ptr<ExpandableSegment>> expandable_;
  std::map<StreamId, uint64_t> next_event_;
  std::map<StreamId, uint64_t> done_event_;
  std::map<StreamId, std::deque<std::pair<uint64_t, Block*>>> pending_;
  uint64_t next_address_ = uint64_t{1} << 40;
  AllocatorStats stats_;
};

}  // namespace labcheck::calc::allocator

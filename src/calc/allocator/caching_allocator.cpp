// DeviceCachingAllocator's malloc and free paths, function by function (the names in the comments
// are PyTorch's, c10/cuda/CUDACachingAllocator.cpp at 001074d2). expandable_segments is in
// caching_allocator_expandable.cpp.
#include "calc/allocator/caching_allocator.h"

#include <algorithm>
#include <bit>

#include "calc/allocator/caching_allocator_blocks.h"

namespace labcheck::calc::allocator {

// AllocParams: the rounded request, its pool and what a new segment for it would be.
struct CachingAllocator::Request {
  StreamId stream = 0;
  uint64_t size = 0;
  BlockPool* pool = nullptr;
  uint64_t alloc_size = 0;
  Block* block = nullptr;
};

namespace {

// roundup_power2_next_division: the next of `divisions` equal steps between two powers of two.
uint64_t RoundupPower2NextDivision(uint64_t size, uint64_t divisions) {
  if (std::has_single_bit(size)) return size;
  const uint64_t floor = std::bit_floor(size);
  const uint64_t step = floor >> (std::bit_width(divisions) - 1);
  if (step == 0) return floor << 1;
  const uint64_t rounded_down = size & ~(step - 1);
  return rounded_down == size ? size : rounded_down + step;
}

void Raise(uint64_t& current, uint64_t& peak, uint64_t bytes) {
  current += bytes;
  peak = std::max(peak, current);
}

}  // namespace

CachingAllocator::CachingAllocator(const AllocatorConfig& config, const AllocatorConstants& constants, uint64_t device_limit,
                                   uint64_t total_memory)
    : config_(config),
      k_(constants),
      device_limit_(device_limit),
      total_memory_(total_memory),
      large_(std::make_unique<BlockPool>(false)),
      small_(std::make_unique<BlockPool>(true)) {}

CachingAllocator::~CachingAllocator() = default;

Block* CachingAllocator::NewBlock() {
  Block* block = nullptr;
  if (spare_.empty()) {
    blocks_.push_back(std::make_unique<Block>());
    block = blocks_.back().get();
  } else {
    block = spare_.back();
    spare_.pop_back();
    *block = Block();
  }
  block->live = true;
  return block;
}

void CachingAllocator::DeleteBlock(Block* block) {
  block->live = false;
  spare_.push_back(block);
}

// round_size
uint64_t CachingAllocator::RoundSize(uint64_t size) const {
  if (size < k_.min_block_size) return k_.min_block_size;
  const uint64_t divisions = config_.DivisionsFor(size);
  if (divisions > 1 && size > k_.min_block_size * divisions) return RoundupPower2NextDivision(size, divisions);
  return k_.min_block_size * ((size + k_.min_block_size - 1) / k_.min_block_size);
}

// get_allocation_size
uint64_t CachingAllocator::AllocationSize(uint64_t size) const {
  if (size <= k_.small_size) return k_.small_buffer;
  if (size < k_.min_large_alloc) return k_.large_buffer;
  return k_.round_large * ((size + k_.round_large - 1) / k_.round_large);
}

// get_pool (no CUDA graph capture)
BlockPool& CachingAllocator::PoolFor(uint64_t size) { return size <= k_.small_size ? *small_ : *large_; }

// should_split
bool CachingAllocator::ShouldSplit(const Block* block, uint64_t size) const {
  const uint64_t remaining = block->size - size;
  if (block->pool->is_small || config_.expandable_segments) return remaining >= k_.min_block_size;
  return size < config_.max_split_size && remaining > k_.small_size;
}

void CachingAllocator::AddReserved(uint64_t bytes) { Raise(stats_.reserved, stats_.reserved_peak, bytes); }
void CachingAllocator::SubReserved(uint64_t bytes) { stats_.reserved -= bytes; }

// malloc: the cache, then a new segment, then the cache freed and the segment retried.
Block* CachingAllocator::Malloc(uint64_t orig_size, StreamId stream) {
  ProcessEvents();
  Request r;
  r.stream = stream;
  r.size = RoundSize(orig_size);
  r.pool = &PoolFor(r.size);
  r.alloc_size = AllocationSize(r.size);
  bool found = GetFreeBlock(r);
  if (!found) {
    found = AllocBlock(r) || (ReleaseAvailableCachedBlocks(r) && AllocBlock(r));
    if (!found) {
      ReleaseCachedBlocks();
      ++stats_.alloc_retries;
      found = AllocBlock(r);
    }
  }
  if (!found) {
    ++stats_.ooms;
    return nullptr;
  }
  return AllocFoundBlock(r, orig_size);
}

// get_free_block: best fit within the stream's part of the pool.
bool CachingAllocator::GetFreeBlock(Request& r) {
  BlockPool& pool = *r.pool;
  Block key;
  key.stream = r.stream;
  key.size = r.size;
  auto it = pool.blocks.lower_bound(&key);
  if (it == pool.blocks.end() || (*it)->stream != r.stream) return false;
  if ((*it)->expandable != nullptr) {
    if (config_.expandable_segments) {
      // The part of a block that can still grow into unmapped pages counts as its size.
      auto expandable_size = [](const Block* b) { return b->size + (b->next && !b->next->mapped ? b->next->size : 0); };
      auto next = std::next(it);
      while ((*it)->expandable != nullptr && next != pool.blocks.end() && (*next)->stream == r.stream &&
             expandable_size(*next) < expandable_size(*it)) {
        it = next++;
      }
    } else {
      do ++it;
      while (it != pool.blocks.end() && (*it)->expandable != nullptr && (*it)->stream == r.stream);
      if (it == pool.blocks.end() || (*it)->stream != r.stream) return false;
    }
  }
  // An oversize block serves only an oversize request, and only within the rounding limit.
  if (r.size < config_.max_split_size && (*it)->size >= config_.max_split_size) return false;
  if (r.size >= config_.max_split_size && (*it)->size >= r.size + config_.max_non_split_rounding_size) return false;
  r.block = *it;
  pool.blocks.erase(it);
  return true;
}

// alloc_block: a new segment (cudaMalloc of alloc_size), or pages of an expandable segment.
bool CachingAllocator::AllocBlock(Request& r) {
  if (config_.expandable_segments) {
    r.block = TryAllocateExpandableBlock(r.stream, *r.pool, r.size);
    return r.block != nullptr;
  }
  if (stats_.reserved + r.alloc_size > device_limit_) return false;  // cudaErrorMemoryAllocation
  auto* block = NewBlock();
  block->stream = r.stream;
  block->size = r.alloc_size;
  block->pool = r.pool;
  block->ptr = next_address_;
  next_address_ += r.alloc_size + k_.round_large;  // segments never touch: they cannot merge
  AddReserved(r.alloc_size);
  ++stats_.device_allocs;
  r.block = block;
  return true;
}

// release_available_cached_blocks: with max_split_size set, free cached oversize blocks of the
// stream, one large enough or several from the largest down.
bool CachingAllocator::ReleaseAvailableCachedBlocks(const Request& r) {
  if (config_.max_split_size == UINT64_MAX) return false;
  BlockPool& pool = *r.pool;
  Block key;
  key.stream = r.stream;
  key.size = std::max(r.size, config_.max_split_size);
  auto it = pool.blocks.lower_bound(&key);
  if (it != pool.blocks.end() && (*it)->stream == r.stream) {
    if (!(*it)->is_split()) ReleaseBlock(*it);
    return true;
  }
  if (it == pool.blocks.begin()) return false;
  uint64_t released = 0;
  --it;
  while (released < key.size && (*it)->size >= config_.max_split_size && (*it)->stream == r.stream) {
    Block* current = *it;
    released += current->size;
    const bool last = it == pool.blocks.begin();
    if (!last) --it;
    if (!current->is_split()) ReleaseBlock(current);
    if (last) break;
  }
  return released >= key.size;
}

// release_cached_blocks: wait for every pending event, then free every wholly free segment.
void CachingAllocator::ReleaseCachedBlocks() {
  SynchronizeAndFreeEvents();
  ReleaseBlocks(*large_);
  ReleaseBlocks(*small_);
}

// release_blocks
void CachingAllocator::ReleaseBlocks(BlockPool& pool) {
  std::vector<Block*> to_unmap;
  for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
    Block* block = *it++;
    if (block->expandable != nullptr) to_unmap.push_back(block);
    else if (!block->is_split()) ReleaseBlock(block);
  }
  for (Block* block : to_unmap) {
    UnmapBlock(block);
    if (!block->mapped && !block->is_split()) ReleaseExpandableSegment(block);
  }
}

// release_block: cudaFree of a whole segment.
void CachingAllocator::ReleaseBlock(Block* block) {
  SubReserved(block->size);
  ++stats_.device_frees;
  block->pool->blocks.erase(block);
  DeleteBlock(block);
}

// alloc_found_block: split off the rest when should_split says so.
Block* CachingAllocator::AllocFoundBlock(Request& r, uint64_t orig_size) {
  Block* block = r.block;
  if (ShouldSplit(block, r.size)) {
    Block* remaining = block;
    block = NewBlock();
    block->stream = r.stream;
    block->size = r.size;
    block->pool = r.pool;
    block->ptr = remaining->ptr;
    block->expandable = remaining->expandable;
    block->Splice(remaining->prev, remaining);
    remaining->ptr += r.size;
    remaining->size -= r.size;
    r.pool->blocks.insert(remaining);
  }
  block->allocated = true;
  block->requested_size = orig_size;
  Raise(stats_.allocated, stats_.allocated_peak, block->size);
  Raise(stats_.active, stats_.active_peak, block->size);
  Raise(stats_.requested, stats_.requested_peak, orig_size);
  return block;
}

// free: a block used on other streams waits for an event on each of them (insert_events).
void CachingAllocator::Free(Block* block) {
  block->allocated = false;
  stats_.allocated -= block->size;
  if (block->stream_uses.empty()) {
    FreeBlock(block);
    return;
  }
  for (StreamId stream : block->stream_uses) {
    pending_[stream].emplace_back(++next_event_[stream], block);
    ++block->event_count;
  }
  block->stream_uses.clear();
}

// free_block: back into its pool, merged with free neighbours of its segment.
void CachingAllocator::FreeBlock(Block* block) {
  const uint64_t size = block->size;
  const uint64_t requested = block->requested_size;
  BlockPool& pool = *block->pool;
  TryMergeBlocks(block, block->prev, pool);
  TryMergeBlocks(block, block->next, pool);
  pool.blocks.insert(block);
  stats_.active -= size;
  stats_.requested -= requested;
}

// try_merge_blocks
uint64_t CachingAllocator::TryMergeBlocks(Block* dst, Block* src, BlockPool& pool) {
  if (src == nullptr || src->allocated || src->event_count > 0 || !src->stream_uses.empty() || dst->mapped != src->mapped) return 0;
  if (dst->prev == src) {
    dst->ptr = src->ptr;
    dst->prev = src->prev;
    if (dst->prev != nullptr) dst->prev->next = dst;
  } else {
    dst->next = src->next;
    if (dst->next != nullptr) dst->next->prev = dst;
  }
  const uint64_t subsumed = src->size;
  dst->size += subsumed;
  if (src->mapped) pool.blocks.erase(src);
  else pool.unmapped.erase(src);
  DeleteBlock(src);
  return subsumed;
}

void CachingAllocator::RecordStream(Block* block, StreamId stream) {
  if (stream == block->stream) return;  // uses on the allocation stream need no event
  if (std::find(block->stream_uses.begin(), block->stream_uses.end(), stream) == block->stream_uses.end()) {
    block->stream_uses.push_back(stream);
  }
}

uint64_t CachingAllocator::RecordEvent(StreamId stream) { return ++next_event_[stream]; }

void CachingAllocator::Synchronize(StreamId stream, uint64_t up_to) {
  uint64_t& done = done_event_[stream];
  done = std::max(done, up_to);
}

void CachingAllocator::SynchronizeAll() {
  for (const auto& [stream, next] : next_event_) done_event_[stream] = next;
}

// process_events: blocks whose events have all completed are freed, at the next malloc.
void CachingAllocator::ProcessEvents() {
  for (auto& [stream, queue] : pending_) {
    const uint64_t done = done_event_[stream];
    while (!queue.empty() && queue.front().first <= done) {
      Block* block = queue.front().second;
      queue.pop_front();
      if (--block->event_count == 0) FreeBlock(block);
    }
  }
}

// synchronize_and_free_events
void CachingAllocator::SynchronizeAndFreeEvents() {
  SynchronizeAll();
  ProcessEvents();
}

void CachingAllocator::EmptyCache() { ReleaseCachedBlocks(); }

void CachingAllocator::ResetPeakStats() {
  stats_.allocated_peak = stats_.allocated;
  stats_.reserved_peak = stats_.reserved;
  stats_.active_peak = stats_.active;
  stats_.requested_peak = stats_.requested;
}

uint64_t CachingAllocator::BlockSize(const Block* block) const { return block->size; }

// snapshot: one entry per segment (per contiguous mapped range of an expandable one).
std::vector<SegmentInfo> CachingAllocator::Snapshot() const {
  std::vector<SegmentInfo> segments;
  for (const auto& record : blocks_) {
    const Block* head = record.get();
    if (!head->live || !head->mapped || (head->prev != nullptr && head->prev->mapped)) continue;
    SegmentInfo s{head->ptr, 0, head->stream, !head->pool->is_small, head->expandable != nullptr, 0, {}};
    for (const Block* b = head; b != nullptr && b->mapped; b = b->next) {
      const bool active = b->allocated || b->event_count > 0 || !b->stream_uses.empty();
      s.blocks.push_back({b->size, b->requested_size, b->allocated, active});
      s.total_size += b->size;
      if (b->allocated) s.allocated_size += b->size;
    }
    segments.push_back(std::move(s));
  }
  std::sort(segments.begin(), segments.end(), [](const SegmentInfo& a, const SegmentInfo& b) { return a.address < b.address; });
  return segments;
}

}  // namespace labcheck::calc::allocator

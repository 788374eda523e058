// expandable_segments:True (Note [Expandable Segments] in c10/cuda/CUDACachingAllocator.cpp at
// 001074d2): one segment per stream and pool reserves address space for 1 1/8 of the card and maps
// physical pages (2 MiB in the small pool, 20 MiB in the large one) as it grows, at the lowest
// address where the request fits; free pages are unmapped only when the cache is freed.
#include <algorithm>

#include "calc/allocator/caching_allocator.h"
#include "calc/allocator/caching_allocator_blocks.h"

namespace labcheck::calc::allocator {
namespace {

bool Allocatable(const Block* b) { return b != nullptr && !b->allocated && b->event_count == 0 && b->stream_uses.empty(); }

// Free or unmapped space from `b` on, enough for `size`?
bool HasAddressSpace(const Block* b, uint64_t size) {
  uint64_t bytes = 0;
  while (bytes < size && Allocatable(b)) {
    bytes += b->size;
    b = b->next;
  }
  return bytes >= size;
}

}  // namespace

// find_expandable_block: the lowest address of the stream's segments where free and unmapped space
// together hold the request, or a new segment.
Block* CachingAllocator::FindExpandableBlock(StreamId stream, BlockPool& pool, uint64_t size) {
  Block key;
  key.stream = stream;
  for (auto it = pool.unmapped.lower_bound(&key); it != pool.unmapped.end() && (*it)->stream == stream; ++it) {
    Block* candidate = *it;
    if (Allocatable(candidate->prev)) candidate = candidate->prev;
    if (HasAddressSpace(candidate, size)) return candidate;
  }
  auto segment = std::make_unique<ExpandableSegment>();
  segment->page = pool.is_small ? k_.small_buffer : k_.large_buffer;
  const uint64_t space = total_memory_ / k_.expandable_address_denominator * k_.expandable_address_numerator;
  segment->pages = (space + segment->page - 1) / segment->page;
  segment->stream = stream;
  segment->base = (next_address_ + segment->page - 1) / segment->page * segment->page;
  next_address_ = segment->base + segment->size() + segment->page;
  auto* candidate = NewBlock();
  candidate->stream = stream;
  candidate->size = segment->size();
  candidate->pool = &pool;
  candidate->ptr = segment->base;
  candidate->mapped = false;
  candidate->expandable = segment.get();
  pool.unmapped.insert(candidate);
  expandable_.push_back(std::move(segment));
  return candidate;
}

// map_block: map the pages under [ptr, ptr + size); the rest of the block stays unmapped. Fails,
// mapping nothing, when the card has no room for the pages (cuMemCreate out of memory).
bool CachingAllocator::MapBlock(Block* to_map, uint64_t size) {
  const ExpandableSegment& segment = *to_map->expandable;
  const uint64_t begin = segment.Left(to_map->ptr);
  const uint64_t end = segment.Right(to_map->ptr + size);
  const uint64_t bytes = (end - begin) * segment.page;
  if (bytes == 0 || stats_.reserved + bytes > device_limit_) return false;
  BlockPool& pool = *to_map->pool;
  pool.unmapped.erase(to_map);
  to_map->mapped = true;
  if (bytes < to_map->size) {
    auto* remaining = NewBlock();
    remaining->stream = to_map->stream;
    remaining->size = to_map->size - bytes;
    remaining->pool = &pool;
    remaining->ptr = to_map->ptr + bytes;
    remaining->mapped = false;
    remaining->expandable = to_map->expandable;
    remaining->Splice(to_map, to_map->next);
    pool.unmapped.insert(remaining);
    to_map->size = bytes;
  }
  TryMergeBlocks(to_map, to_map->prev, pool);
  TryMergeBlocks(to_map, to_map->next, pool);
  pool.blocks.insert(to_map);
  AddReserved(bytes);
  ++stats_.device_allocs;
  return true;
}

// try_allocate_expandable_block: map until the candidate holds the request.
Block* CachingAllocator::TryAllocateExpandableBlock(StreamId stream, BlockPool& pool, uint64_t size) {
  Block* candidate = FindExpandableBlock(stream, pool, size);
  if (!candidate->mapped && !MapBlock(candidate, std::min(candidate->size, size))) return nullptr;
  while (candidate->size < size) {
    Block* next = candidate->next;
    if (!MapBlock(next, std::min(size - candidate->size, next->size))) return nullptr;
    candidate = next;  // merged with the candidate by MapBlock
  }
  pool.blocks.erase(candidate);
  return candidate;
}

// unmap_block: give back the whole pages inside a free block; what is left of a page on either
// side stays a free mapped block.
void CachingAllocator::UnmapBlock(Block* block) {
  ExpandableSegment& segment = *block->expandable;
  const uint64_t begin = segment.Right(block->ptr);
  const uint64_t end = segment.Left(block->ptr + block->size);
  if (begin >= end) return;
  const uint64_t unmapped_ptr = segment.base + begin * segment.page;
  const uint64_t unmapped_size = (end - begin) * segment.page;
  BlockPool& pool = *block->pool;
  pool.blocks.erase(block);
  auto split_off = [&](uint64_t ptr, uint64_t size, Block* before, Block* after) {
    auto* part = NewBlock();
    part->stream = block->stream;
    part->size = size;
    part->pool = &pool;
    part->ptr = ptr;
    part->expandable = block->expandable;
    part->Splice(before, after);
    pool.blocks.insert(part);
  };
  const uint64_t before_size = unmapped_ptr - block->ptr;
  if (before_size > 0) split_off(block->ptr, before_size, block->prev, block);
  const uint64_t after_size = block->size - (before_size + unmapped_size);
  if (after_size > 0) split_off(unmapped_ptr + unmapped_size, after_size, block, block->next);
  block->ptr = unmapped_ptr;
  block->size = unmapped_size;
  block->mapped = false;
  TryMergeBlocks(block, block->prev, pool);
  TryMergeBlocks(block, block->next, pool);
  pool.unmapped.insert(block);
  SubReserved(unmapped_size);
  ++stats_.device_frees;
}

// release_expandable_segment: a segment wholly unmapped goes.
void CachingAllocator::ReleaseExpandableSegment(Block* block) {
  block->pool->unmapped.erase(block);
  const ExpandableSegment* segment = block->expandable;
  expandable_.erase(std::remove_if(expandable_.begin(), expandable_.end(), [&](const auto& s) { return s.get() == segment; }),
                    expandable_.end());
  DeleteBlock(block);
}

}  // namespace labcheck::calc::allocator

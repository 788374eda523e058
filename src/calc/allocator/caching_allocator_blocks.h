// The allocator model's inner records (caching_allocator.h), shared by its two source files. They
// mirror Block, BlockPool and ExpandableSegment of c10/cuda/CUDACachingAllocator.cpp.
#pragma once
#include <cstdint>
#include <set>
#include <vector>

#include "calc/allocator/caching_allocator.h"

namespace labcheck::calc::allocator {

struct ExpandableSegment {
  uint64_t base = 0;   // first address, aligned to the page
  uint64_t page = 0;   // kSmallBuffer for the small pool, kLargeBuffer for the large one
  uint64_t pages = 0;  // address space / page
  StreamId stream = 0;

  uint64_t size() const { return page * pages; }
  uint64_t Left(uint64_t address) const { return (address - base) / page; }                // segmentLeft
  uint64_t Right(uint64_t address) const { return (address - base + page - 1) / page; }    // segmentRight
};

struct Block {
  StreamId stream = 0;
  uint64_t size = 0;
  uint64_t requested_size = 0;
  BlockPool* pool = nullptr;
  uint64_t ptr = 0;
  bool allocated = false;
  bool mapped = true;  // false only for the unmapped tail of an expandable segment
  Block* prev = nullptr;
  Block* next = nullptr;
  int event_count = 0;
  std::vector<StreamId> stream_uses;
  ExpandableSegment* expandable = nullptr;
  bool live = false;  // in use by the allocator (the model keeps deleted blocks for reuse: NewBlock)

  bool is_split() const { return prev != nullptr || next != nullptr; }
  // Block::splice: put this block between `before` and `after`.
  void Splice(Block* before, Block* after) {
    if (before != nullptr) before->next = this;
    prev = before;
    if (after != nullptr) after->prev = this;
    next = after;
  }
};

// BlockComparatorSize: by stream, then size, then address.
struct BySize {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return a->ptr < b->ptr;
  }
};
// BlockComparatorAddress: by stream, then address.
struct ByAddress {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    return a->ptr < b->ptr;
  }
};

struct BlockPool {
  explicit BlockPool(bool small) : is_small(small) {}
  std::set<Block*, BySize> blocks;       // free, mapped blocks
  std::set<Block*, ByAddress> unmapped;  // the unmapped parts of expandable segments
  bool is_small;
};

}  // namespace labcheck::calc::allocator

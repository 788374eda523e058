// The size constants of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp), read
// once from data/caching_allocator.json, where each carries the source line it comes from.
// The allocator model (caching_allocator.h) types none of these numbers in.
#pragma once
#include <cstdint>

namespace labcheck::calc::allocator {

struct AllocatorConstants {
  uint64_t min_block_size = 0;   // kMinBlockSize: every request is rounded to a multiple of it
  uint64_t small_size = 0;       // kSmallSize: the largest request served by the small pool
  uint64_t small_buffer = 0;     // kSmallBuffer: the small pool's segment (and expandable page) size
  uint64_t large_buffer = 0;     // kLargeBuffer: segment for requests under kMinLargeAlloc, large expandable page
  uint64_t min_large_alloc = 0;  // kMinLargeAlloc: from here up a request gets a segment of its own size
  uint64_t round_large = 0;      // kRoundLarge: such segments are rounded up to it
  int roundup_power2_intervals = 0;  // kRoundUpPowerOfTwoIntervals: 1 MiB to 64 GiB
  // An expandable segment reserves this fraction of the card's memory as address space.
  uint64_t expandable_address_numerator = 0;
  uint64_t expandable_address_denominator = 1;

  static const AllocatorConstants& Builtin();
};

}  // namespace labcheck::calc::allocator

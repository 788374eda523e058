// The allocator model (calc/allocator/caching_allocator.h) on sequences whose outcome PyTorch's own
// tests or documentation state. Each test names where its expectation comes from:
//   - test/test_cuda.py of pytorch/pytorch at 000e43cd (TestCuda, TestMemPool);
//   - the allocator's own description at the top of c10/cuda/CUDACachingAllocator.cpp (001074d2)
//     and its Note [Expandable Segments];
//   - test_allocator_settings and test_roundup_power2_divisions_* as PyTorch's test_cuda.py has
//     them, read in Cambricon's port of that file (torch_mlu's test_caching_allocator.py), which
//     carries the sizes and expected results over unchanged; the PyTorch copy itself was not found
//     by the search tools (its file is stored past the part they index).
#include <gtest/gtest.h>

#include "calc/allocator/alloc_conf.h"
#include "calc/allocator/caching_allocator.h"

namespace labcheck::calc::allocator {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;
constexpr StreamId kDefault = 0;
constexpr StreamId kSide = 1;

const AllocatorConstants& K() { return AllocatorConstants::Builtin(); }

AllocatorConfig Conf(const std::string& text = "") {
  auto parsed = ParseAllocConf(text, K());
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? parsed.value() : AllocatorConfig::Defaults(K());
}

size_t SegmentCount(const CachingAllocator& a) { return a.Snapshot().size(); }

// test_memory_stats: torch.randn(256) (1 KiB) adds exactly 1024 active bytes; test_memory_allocation:
// one byte still takes a block (kMinBlockSize: "all sizes are rounded to at least 512 bytes").
TEST(CachingAllocatorTest, RoundsEveryRequestToAMultipleOf512Bytes) {
  CachingAllocator a(Conf(), K(), 8 * kGiB, 8 * kGiB);
  Block* one_kib = a.Malloc(1024, kDefault);
  EXPECT_EQ(a.stats().active, 1024u);
  Block* one_byte = a.Malloc(1, kDefault);
  EXPECT_EQ(a.BlockSize(one_byte), 512u);
  EXPECT_EQ(a.stats().requested, 1025u);
  a.Free(one_kib);
  a.Free(one_byte);
  EXPECT_EQ(a.stats().active, 0u);
}

// TestMemPool.test_mempool_with_allocator: a 1 MiB request is packed into a 2 MiB buffer (one
// segment), a second fits the same buffer, a third needs a new one (two segments).
TEST(CachingAllocatorTest, PacksSmallRequestsIntoTwoMiBSegments) {
  CachingAllocator a(Conf(), K(), 8 * kGiB, 8 * kGiB);
  a.Malloc(kMiB, kDefault);
  EXPECT_EQ(SegmentCount(a), 1u);
  a.Malloc(kMiB, kDefault);
  EXPECT_EQ(SegmentCount(a), 1u);
  a.Malloc(kMiB, kDefault);
  EXPECT_EQ(SegmentCount(a), 2u);
  EXPECT_EQ(a.stats().reserved, 4 * kMiB);
}

// TestMemPool.test_mempool_no_split: "Allocate 4 MB ... this should allocate a 20 MB segment";
// "allocate another 4 MB - this should cause splitting in the normal pool" (no new segment).
TEST(CachingAllocatorTest, SplitsATwentyMiBSegmentForRequestsBetweenOneAndTenMiB) {
  CachingAllocator a(Conf(), K(), 8 * kGiB, 8 * kGiB);
  a.Malloc(4 * kMiB, kDefault);
  EXPECT_EQ(a.stats().reserved, 20 * kMiB);
  a.Malloc(4 * kMiB, kDefault);
  EXPECT_EQ(a.stats().reserved, 20 * kMiB);
  ASSERT_EQ(SegmentCount(a), 1u);
  EXPECT_EQ(a.Snapshot()[0].blocks.size(), 3u);  // two allocated, the free rest
}

// TestMemPool.test_nested_mempool: 20 MiB tensors each take a segment of their own (from kMinLargeAlloc
// up a request gets its own segment, rounded to kRoundLarge).
TEST(CachingAllocatorTest, GivesLargeRequestsSegmentsOfTheirOwnRoundedToTwoMiB) {
  CachingAllocator a(Conf(), K(), 8 * kGiB, 8 * kGiB);
  a.Malloc(20 * kMiB, kDefault);
  a.Malloc(20 * kMiB, kDefault);
  EXPECT_EQ(SegmentCount(a), 2u);
  a.Malloc(11 * kMiB + 1, kDefault);
  EXPECT_EQ(a.stats().reserved, 40 * kMiB + 12 * kMiB);
}

// The allocator's description: "Once freed, blocks can be re-allocated on the same stream, but not
// on any other stream."
TEST(CachingAllocatorTest, KeepsAFreedBlockForTheStreamThatAllocatedIt) {
  CachingAllocator a(Conf(), K(), 8 * kGiB, 8 * kGiB);
  a.Free(a.Malloc(100 * kMiB, kSide));
  Block* on_default = a.Malloc(100 * kMiB, kDefault);
  EXPECT_EQ(a.stats().reserved, 200 * kMiB);
  a.Malloc(100 * kMiB, kSide);
  EXPECT_EQ(a.stats().reserved, 200 * kMiB);  // the side stream's own block again
  a.Free(on_default);
}

// "The allocator attempts to find the smallest cached block that will fit the requested size. If
// the block is larger than the requested size, it may be split."
TEST(CachingAllocatorTest, TakesTheSmallestCachedBlockThatFitsAndSplitsIt) {
  CachingAllocator a(Conf(), K(), 8 * kGiB, 8 * kGiB);
  Block* big = a.Malloc(300 * kMiB, kDefault);
  Block* mid = a.Malloc(120 * kMiB, kDefault);
  a.Free(big);
  a.Free(mid);
  a.Malloc(100 * kMiB, kDefault);  // best fit: the 120 MiB block, split
  EXPECT_EQ(a.stats().reserved, 420 * kMiB);
  const auto segments = a.Snapshot();
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[1].blocks.size(), 2u);  // 100 allocated + 20 free in the 120 MiB segment
  EXPECT_EQ(segments[0].blocks.size(), 1u);
}

// "To further reduce fragmentation, blocks >= max_split_size are not allowed to be split. These
// oversize cached blocks will still satisfy requests within 1MB of the oversize cached block size"
// (the code's limit is kLargeBuffer, 20 MiB, max_non_split_rounding_mb in newer versions).
TEST(CachingAllocatorTest, NeverSplitsOversizeBlocksUnderMaxSplitSize) {
  CachingAllocator a(Conf("max_split_size_mb:64"), K(), 8 * kGiB, 8 * kGiB);
  a.Free(a.Malloc(100 * kMiB, kDefault));
  a.Malloc(30 * kMiB, kDefault);  // under max_split_size: the oversize block is not used
  EXPECT_EQ(a.stats().reserved, 130 * kMiB);
  a.Free(a.Malloc(90 * kMiB, kDefault));  // oversize, within 20 MiB of the cached 100: reused whole
  EXPECT_EQ(a.stats().reserved, 130 * kMiB);
  a.Malloc(70 * kMiB, kDefault);  // oversize but 30 MiB smaller than the block: a new segment
  EXPECT_EQ(a.stats().reserved, 200 * kMiB);
}

// test_out_of_memory_retry: half the card twice fails while the first half is held; once it is
// freed, the same request succeeds from the cache.
TEST(CachingAllocatorTest, RaisesOutOfMemoryOnlyWhenTheCardIsFullAndReusesTheCacheAfterwards) {
  const uint64_t total = 8 * kGiB;
  CachingAllocator a(Conf(), K(), total - 512 * kMiB, total);
  Block* first = a.Malloc(total / 2, kDefault);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(a.Malloc(total / 2, kDefault), nullptr);
  EXPECT_EQ(a.stats().ooms, 1);
  a.Free(first);
  EXPECT_NE(a.Malloc(total / 2, kDefault), nullptr);
  EXPECT_EQ(a.stats().reserved, total / 2);
}

// The description: "If the cudaMalloc fails, the allocator will attempt to free ... all cached
// blocks that are not split and retry the allocation": another stream's cached block goes.
TEST(CachingAllocatorTest, FreesTheCacheOfOtherStreamsAndRetriesBeforeFailing) {
  CachingAllocator a(Conf(), K(), 1 * kGiB, 8 * kGiB);
  a.Free(a.Malloc(600 * kMiB, kSide));
  Block* block = a.Malloc(600 * kMiB, kDefault);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(a.stats().alloc_retries, 1);
  EXPECT_EQ(a.stats().reserved, 600 * kMiB);
  EXPECT_EQ(a.stats().reserved_peak, 600 * kMiB);
}

// test_caching_allocator_record_stream_oom: "allocations delayed by a record_stream call should
// still be freed on an out-of-memory in cuda_malloc_retry": 100 rounds of a 160 MiB tensor used on
// a side stream and freed never fail, though the side stream never finishes on its own.
TEST(CachingAllocatorTest, FreesBlocksWaitingForAnotherStreamWhenMemoryRunsOut) {
  CachingAllocator a(Conf(), K(), 2 * kGiB, 8 * kGiB);
  Block* y = a.Malloc(160 * kMiB, kSide);
  for (int i = 0; i < 100; ++i) {
    Block* x = a.Malloc(160 * kMiB, kDefault);
    ASSERT_NE(x, nullptr) << "round " << i;
    a.RecordStream(x, kSide);
    a.Free(x);
  }
  EXPECT_GT(a.stats().alloc_retries, 0);
  EXPECT_LE(a.stats().reserved_peak, 2 * kGiB);
  a.Free(y);
}

// The same wait, seen from the stream: the block returns to its pool only once the side stream's
// event has completed, at the next malloc (process_events).
TEST(CachingAllocatorTest, ReusesABlockUsedOnAnotherStreamOnlyAfterThatStreamsEvent) {
  CachingAllocator a(Conf(), K(), 8 * kGiB, 8 * kGiB);
  Block* x = a.Malloc(100 * kMiB, kDefault);
  a.RecordStream(x, kSide);
  a.Free(x);
  EXPECT_EQ(a.stats().active, 100 * kMiB);  // freed, but still active until the event completes
  a.Malloc(100 * kMiB, kDefault);
  EXPECT_EQ(a.stats().reserved, 200 * kMiB);
  a.SynchronizeAll();
  a.Malloc(100 * kMiB, kDefault);
  EXPECT_EQ(a.stats().reserved, 200 * kMiB);
}

// Note [Expandable Segments]: "it tries to make one segment (per stream) that grows as necessary",
// mapping 20 MiB pages in the large pool; the snapshot reports one segment per mapped range.
TEST(CachingAllocatorTest, GrowsOneExpandableSegmentPerStream) {
  CachingAllocator a(Conf("expandable_segments:True"), K(), 8 * kGiB, 8 * kGiB);
  a.Malloc(30 * kMiB, kDefault);
  a.Malloc(30 * kMiB, kDefault);
  EXPECT_EQ(a.stats().reserved, 60 * kMiB);  // three 20 MiB pages
  ASSERT_EQ(SegmentCount(a), 1u);
  EXPECT_TRUE(a.Snapshot()[0].is_expandable);
  a.Malloc(30 * kMiB, kSide);
  EXPECT_EQ(SegmentCount(a), 2u);
}

// "If we end up out of memory, we can unmap all the memory in our segment corresponding to empty
// physical pages, and return it to CUDA for use at another address in the segment or in a segment
// for a different stream."
TEST(CachingAllocatorTest, UnmapsFreeExpandablePagesToServeAnotherStream) {
  CachingAllocator a(Conf("expandable_segments:True"), K(), 1 * kGiB, 8 * kGiB);
  a.Free(a.Malloc(600 * kMiB, kSide));
  ASSERT_NE(a.Malloc(600 * kMiB, kDefault), nullptr);
  EXPECT_EQ(a.stats().reserved, 600 * kMiB);
  EXPECT_EQ(a.stats().alloc_retries, 1);
}

// The reason expandable segments exist (the Note's "Rationale"): requests that grow a little each
// time leave slivers in fixed segments but tile one growing segment.
TEST(CachingAllocatorTest, ExpandableSegmentsReserveLessForGrowingRequests) {
  auto reserve = [](const std::string& conf) {
    CachingAllocator a(Conf(conf), K(), 64 * kGiB, 64 * kGiB);
    for (uint64_t n = 100; n < 110; ++n) {
      Block* x = a.Malloc(n * kMiB, kDefault);
      Block* y = a.Malloc(3 * n * kMiB, kDefault);
      a.Free(x);
      a.Free(y);
    }
    return a.stats().reserved_peak;
  };
  EXPECT_LT(reserve("expandable_segments:True"), reserve(""));
}

// test_allocator_settings (84 MiB requests): plain rounding keeps 84 MiB; roundup_power2_divisions:4
// gives 96 MiB; the list form [64:8,...] gives 88 MiB, and 400 MiB under "256:2" gives 512 MiB.
TEST(CachingAllocatorTest, RoundsUpToPowerOfTwoDivisionsAsTestAllocatorSettingsExpects) {
  const uint64_t nbytes = 4 * 21 * kMiB;
  auto allocated = [](const std::string& conf, uint64_t bytes) {
    CachingAllocator a(Conf(conf), K(), 64 * kGiB, 64 * kGiB);
    a.Malloc(bytes, kDefault);
    return a.stats().allocated;
  };
  EXPECT_EQ(allocated("", nbytes), nbytes);
  EXPECT_EQ(allocated("roundup_power2_divisions:4", nbytes), 96 * kMiB);
  const std::string list = "garbage_collection_threshold:0.5,roundup_power2_divisions:[64:8,128:2,256:2,512:2,1024:1,>:1]";
  EXPECT_EQ(allocated(list, nbytes), 88 * kMiB);
  EXPECT_EQ(allocated(list, 4 * 100 * kMiB), 512 * kMiB);
}

// test_roundup_power2_divisions_0: "[128:1,256:0,512:4]": 268 MiB (interval 256, 0 divisions) is
// not rounded up; 520 MiB (interval 512, 4 divisions) becomes 640 MiB.
// test_roundup_power2_divisions_1: one division rounds to 512 bytes only.
TEST(CachingAllocatorTest, ZeroOrOneDivisionLeavesPlainRounding) {
  auto allocated = [](const std::string& conf, uint64_t bytes) {
    CachingAllocator a(Conf(conf), K(), 64 * kGiB, 64 * kGiB);
    a.Malloc(bytes, kDefault);
    return a.stats().allocated;
  };
  EXPECT_EQ(allocated("roundup_power2_divisions:[128:1,256:0,512:4]", 4 * 67 * kMiB), 4 * 67 * kMiB);
  EXPECT_EQ(allocated("roundup_power2_divisions:[128:1,256:0,512:4]", 4 * 130 * kMiB), 640 * kMiB);
  const uint64_t nbytes = 4 * 21 * 125 * 125;
  EXPECT_EQ(allocated("roundup_power2_divisions:1", nbytes), (nbytes + 511) / 512 * 512);
}

// empty_cache gives back wholly free segments only: a segment with a live block stays.
TEST(CachingAllocatorTest, EmptyCacheReleasesOnlyWhollyFreeSegments) {
  CachingAllocator a(Conf(), K(), 8 * kGiB, 8 * kGiB);
  Block* kept = a.Malloc(4 * kMiB, kDefault);
  a.Free(a.Malloc(4 * kMiB, kDefault));
  a.Free(a.Malloc(100 * kMiB, kDefault));
  a.EmptyCache();
  EXPECT_EQ(a.stats().reserved, 20 * kMiB);
  a.Free(kept);
  a.EmptyCache();
  EXPECT_EQ(a.stats().reserved, 0u);
}

}  // namespace
}  // namespace labcheck::calc::allocator

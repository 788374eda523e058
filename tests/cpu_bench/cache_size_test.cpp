#include "cpu_bench/cache_size.h"

#include <gtest/gtest.h>

namespace labcheck::cpu_bench {
namespace {

TEST(ParseCacheSize, ReadsSysfsUnits) {
  EXPECT_EQ(ParseCacheSize("32768K\n"), uint64_t{32} << 20);
  EXPECT_EQ(ParseCacheSize("1M"), uint64_t{1} << 20);
  EXPECT_EQ(ParseCacheSize("512"), 512u);
  EXPECT_FALSE(ParseCacheSize("K").has_value());
  EXPECT_FALSE(ParseCacheSize("12X").has_value());
}

TEST(TotalLastLevelCacheBytes, CountsEachSharedInstanceOnce) {
  // Two CCDs of 4 CPUs, each with its own 32 MiB L3; every CPU lists its L1d, L1i and L3.
  std::vector<CacheEntry> entries;
  for (int cpu = 0; cpu < 8; ++cpu) {
    entries.push_back({1, "Data", "32K", std::to_string(cpu)});
    entries.push_back({1, "Instruction", "32K", std::to_string(cpu)});
    entries.push_back({3, "Unified", "32768K", cpu < 4 ? "0-3" : "4-7"});
  }
  EXPECT_EQ(TotalLastLevelCacheBytes(entries), uint64_t{64} << 20);
}

TEST(TotalLastLevelCacheBytes, FallsToTheHighestLevelPresent) {
  std::vector<CacheEntry> entries = {{1, "Data", "48K", "0"}, {2, "Unified", "2048K", "0-1"},
                                     {2, "Unified", "2048K", "0-1"}, {1, "Instruction", "64K", "0"}};
  EXPECT_EQ(TotalLastLevelCacheBytes(entries), uint64_t{2} << 20);
  EXPECT_FALSE(TotalLastLevelCacheBytes({}).has_value());
}

}  // namespace
}  // namespace labcheck::cpu_bench

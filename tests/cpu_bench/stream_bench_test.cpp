#include "cpu_bench/stream_bench.h"

#include <gtest/gtest.h>

#include <atomic>

#include "core/units.h"

namespace labcheck::cpu_bench {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(PlanStream, FloorOf256MiBCoversSmallCaches) {
  StreamPlan plan = PlanStream(32 * kMiB, 64 * kGiB, false);
  EXPECT_EQ(plan.array_bytes, 256 * kMiB);
  EXPECT_FALSE(plan.below_stream_rule);
  EXPECT_EQ(plan.repeats, 10);
  EXPECT_EQ(PlanStream(32 * kMiB, 64 * kGiB, true).repeats, 3);
}

TEST(PlanStream, FourTimesAHugeLastLevelCache) {
  // Two EPYC 9684X sockets: 2 × 1152 MiB of L3.
  StreamPlan plan = PlanStream(2304 * kMiB, 512 * kGiB, true);
  EXPECT_EQ(plan.array_bytes, 4 * 2304 * kMiB);
  EXPECT_FALSE(plan.below_stream_rule);
}

TEST(PlanStream, NeverTakesMoreThanHalfTheAvailableMemory) {
  StreamPlan plan = PlanStream(512 * kMiB, 3 * kGiB, false);
  EXPECT_LE(3 * plan.array_bytes, 3 * kGiB / 2);
  EXPECT_EQ(plan.array_bytes % (2 * kMiB), 0u);
  EXPECT_TRUE(plan.below_stream_rule);
}

TEST(PlanStream, TinyMemoryIsFlaggedEvenWithoutKnownCache) {
  StreamPlan plan = PlanStream(std::nullopt, 600 * kMiB, true);
  EXPECT_EQ(plan.array_bytes, 100 * kMiB);
  EXPECT_TRUE(plan.below_stream_rule);
}

TEST(PlanStream, UnknownCacheAndMemoryStillGiveTheFloor) {
  StreamPlan plan = PlanStream(std::nullopt, std::nullopt, true);
  EXPECT_EQ(plan.array_bytes, 256 * kMiB);
  EXPECT_FALSE(plan.below_stream_rule);
}

TEST(RunStream, SmallRunIsCorrectAndCountsItsPasses) {
  ThreadTeam team(AllowedCpus());
  StreamPlan plan;
  plan.array_bytes = 4 * kMiB + 8 * 3;  // not a multiple of the slices: the tail must be covered
  plan.repeats = 2;
  plan.max_seconds = 60;
  auto run = RunStream(plan, team, CancelToken::Never(), [](double, const std::string&) {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->elements, plan.array_bytes / 8);
  EXPECT_EQ(run->threads, team.size());
  EXPECT_EQ(run->copy_seconds.size(), 2u);
  EXPECT_EQ(run->triad_seconds.size(), 2u);
  EXPECT_DOUBLE_EQ(run->copy_bytes(), 16.0 * run->elements);
  EXPECT_DOUBLE_EQ(run->triad_bytes(), 24.0 * run->elements);
  for (double s : run->copy_seconds) EXPECT_GT(s, 0);
}

TEST(RunStream, StopsRepeatingWhenCancelled) {
  ThreadTeam team(AllowedCpus());
  StreamPlan plan;
  plan.array_bytes = 2 * kMiB;
  plan.repeats = 50;
  plan.max_seconds = 60;
  std::atomic<bool> flag{true};
  auto run = RunStream(plan, team, CancelToken(&flag), [](double, const std::string&) {});
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->copy_seconds.empty());
}

}  // namespace
}  // namespace labcheck::cpu_bench

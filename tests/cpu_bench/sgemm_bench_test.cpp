#include "cpu_bench/sgemm_bench.h"

#include <gtest/gtest.h>

#include <atomic>

namespace labcheck::cpu_bench {
namespace {

TEST(PlanSgemm, QuickIsShorterThanFull) {
  SgemmPlan quick = PlanSgemm(4, true, std::nullopt), full = PlanSgemm(4, false, std::nullopt);
  EXPECT_LT(quick.target_call_seconds, full.target_call_seconds);
  EXPECT_LT(quick.repeats, full.repeats);
  EXPECT_EQ(full.threads, 4);
  EXPECT_EQ(full.max_n, 8192);
}

TEST(PlanSgemm, SmallMemoryCapsTheSize) {
  // 3 × 4 bytes × N² within a quarter of 512 MiB: N = 4096 needs 192 MiB, too much; 2048 fits.
  EXPECT_EQ(PlanSgemm(4, false, uint64_t{512} << 20).max_n, 2048);
}

TEST(RunSgemm, SmallestSizeIsCorrect) {
  SgemmPlan plan = PlanSgemm(2, true, std::nullopt);
  plan.target_call_seconds = 0;  // stay at the 1024 trial size
  plan.repeats = 2;
  auto run = RunSgemm(plan, CancelToken::Never(), [](double, const std::string&) {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->n, 1024);
  EXPECT_EQ(run->seconds.size(), 2u);
  EXPECT_DOUBLE_EQ(run->flop(), 2.0 * 1024 * 1024 * 1024);
  EXPECT_FALSE(run->corename.empty());
  EXPECT_NE(run->config.find("OpenBLAS"), std::string::npos);
  EXPECT_GE(run->threads, 1);
}

TEST(RunSgemm, CancelledRunTimesNothing) {
  SgemmPlan plan = PlanSgemm(1, true, std::nullopt);
  plan.target_call_seconds = 0;
  std::atomic<bool> flag{true};
  auto run = RunSgemm(plan, CancelToken(&flag), [](double, const std::string&) {});
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->seconds.empty());
}

}  // namespace
}  // namespace labcheck::cpu_bench

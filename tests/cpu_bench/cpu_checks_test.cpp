// The registered checks as the runner calls them, in --quick mode.
#include "cpu_bench/cpu_checks.h"

#include <gtest/gtest.h>

#include <vector>

namespace labcheck {
namespace {

CheckResult RunQuick(const Check& check) {
  RunOptions options;
  options.quick = true;
  std::vector<CheckResult> earlier;
  CancelToken never = CancelToken::Never();
  CheckContext ctx(options, earlier, never, check, nullptr);
  return check.run(ctx);
}

TEST(RegisterCpuChecks, AddsBothShortenedUnderQuick) {
  Registry registry;
  RegisterCpuChecks(registry);
  ASSERT_EQ(registry.checks().size(), 2u);
  EXPECT_EQ(registry.checks()[0].id, "cpu.memory_bandwidth");
  EXPECT_EQ(registry.checks()[1].id, "cpu.matmul");
  for (const Check& check : registry.checks()) {
    EXPECT_EQ(check.section, "cpu");
    EXPECT_EQ(check.quick, QuickMode::Shortened);
  }
}

TEST(RegisterCpuChecks, QuickRunsMeasureOnThisMachine) {
  Registry registry;
  RegisterCpuChecks(registry);
  CheckResult memory = RunQuick(registry.checks()[0]);
  ASSERT_NE(memory.outcome, Outcome::Fail) << memory.error;
  EXPECT_GT(memory.Find("cpu.mem_triad_gbps")->value, 0);
  CheckResult matmul = RunQuick(registry.checks()[1]);
  ASSERT_NE(matmul.outcome, Outcome::Fail) << matmul.error;
  EXPECT_GT(matmul.Find("cpu.sgemm_gflops")->value, 0);
}

}  // namespace
}  // namespace labcheck

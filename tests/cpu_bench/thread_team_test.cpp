#include "cpu_bench/thread_team.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <vector>

namespace labcheck::cpu_bench {
namespace {

TEST(AllowedCpus, ListsTheAffinityMask) {
  std::vector<int> cpus = AllowedCpus();
  ASSERT_FALSE(cpus.empty());
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(static_cast<int>(cpus.size()), CPU_COUNT(&set));
}

TEST(ThreadTeam, EveryWorkerRunsOncePerCallOnItsOwnCpu) {
  std::vector<int> cpus = AllowedCpus();
  ThreadTeam team(cpus);
  ASSERT_EQ(team.size(), static_cast<int>(cpus.size()));
  std::vector<std::atomic<int>> calls(cpus.size());
  std::vector<int> where(cpus.size(), -1);
  for (int round = 0; round < 3; ++round) {
    double seconds = team.Run([&](int i) {
      calls[i].fetch_add(1);
      where[i] = sched_getcpu();
    });
    EXPECT_GE(seconds, 0);
  }
  for (size_t i = 0; i < cpus.size(); ++i) {
    EXPECT_EQ(calls[i].load(), 3);
    EXPECT_EQ(where[i], cpus[i]);
  }
}

}  // namespace
}  // namespace labcheck::cpu_bench

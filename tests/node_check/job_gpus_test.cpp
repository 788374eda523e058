// Which GPUs node-check judges under a Slurm job (issue 42: shared nodes).
#include <gtest/gtest.h>

#include "fake_env.h"
#include "node_check/scan/job_gpus.h"

namespace labcheck::node_check {
namespace {

TEST(JobGpus, OnlyUnderAJobThatNamesGpus) {
  EXPECT_FALSE(JobGpusFromEnv(testing::FakeEnv({})));
  // The health check: slurmd's node name, no job: the whole node.
  EXPECT_FALSE(JobGpusFromEnv(testing::FakeEnv({{"SLURMD_NODENAME", "n1"}, {"SLURM_JOB_GPUS", "0,1"}})));
  // A job without GPUs: nothing narrows, the whole node as before.
  EXPECT_FALSE(JobGpusFromEnv(testing::FakeEnv({{"SLURM_JOB_ID", "7"}})));
}

TEST(JobGpus, AStepKeepsCudaVisibleDevicesAPrologGetsItFromSlurmJobGpus) {
  std::optional<JobGpus> step = JobGpusFromEnv(testing::FakeEnv({{"SLURM_JOB_ID", "7"}, {"CUDA_VISIBLE_DEVICES", "0,1"}, {"SLURM_JOB_GPUS", "4,5"}}));
  ASSERT_TRUE(step);
  EXPECT_EQ(step->count, 2);
  EXPECT_EQ(step->source, "CUDA_VISIBLE_DEVICES");
  // Inherited as it is, in the bus order Slurm's ids count in unless the job chose an order.
  const std::vector<std::pair<std::string, std::string>> bus_order = {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  EXPECT_EQ(step->child_env, bus_order);
  std::optional<JobGpus> ordered = JobGpusFromEnv(
      testing::FakeEnv({{"SLURM_JOB_ID", "7"}, {"CUDA_VISIBLE_DEVICES", "0,1"}, {"CUDA_DEVICE_ORDER", "FASTEST_FIRST"}}));
  ASSERT_TRUE(ordered);
  EXPECT_TRUE(ordered->child_env.empty());

  std::optional<JobGpus> prolog = JobGpusFromEnv(testing::FakeEnv({{"SLURM_JOB_ID", "7"}, {"SLURM_JOB_GPUS", "1,3,6"}}));
  ASSERT_TRUE(prolog);
  EXPECT_EQ(prolog->count, 3);
  EXPECT_EQ(prolog->source, "SLURM_JOB_GPUS");
  const std::vector<std::pair<std::string, std::string>> env = {{"CUDA_VISIBLE_DEVICES", "1,3,6"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  EXPECT_EQ(prolog->child_env, env);
}

}  // namespace
}  // namespace labcheck::node_check

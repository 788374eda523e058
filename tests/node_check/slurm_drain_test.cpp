// Where --drain finds scontrol when slurmd runs node-check with no PATH (issue 42), and when the
// health check's shorter default timeout applies.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "fake_env.h"
#include "node_check/node_check_command.h"
#include "node_check/slurm/slurm_drain.h"
#include "node_check/slurm/slurm_policy.h"
#include "runner/child_process.h"

namespace labcheck::node_check {
namespace {

// A folder holding an executable `scontrol` (and one holding a plain file of that name).
struct FakeSlurm {
  // Per test: ctest runs the tests of this file side by side, and each removes its folders.
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::string dir = ::testing::TempDir() + "fake_slurm_bin_" + test, plain = ::testing::TempDir() + "fake_slurm_plain_" + test;
  FakeSlurm() {
    for (const std::string& d : {dir, plain}) std::filesystem::create_directories(d);
    std::ofstream(dir + "/scontrol") << "#!/bin/sh\nexit 0\n";
    chmod((dir + "/scontrol").c_str(), 0755);
    std::ofstream(plain + "/scontrol") << "not a program\n";
    chmod((plain + "/scontrol").c_str(), 0644);
  }
  ~FakeSlurm() {
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(plain);
  }
};

TEST(FindScontrol, WithoutPathTheUsualFoldersAreTried) {
  FakeSlurm slurm;
  // slurmd's empty environment: no PATH at all.
  EXPECT_EQ(FindScontrol("", testing::FakeEnv({}), {"/nonexistent", slurm.plain, slurm.dir}), slurm.dir + "/scontrol");
  EXPECT_EQ(FindScontrol("", testing::FakeEnv({}), {"/nonexistent", slurm.plain}), "");
  // PATH first, when there is one.
  EXPECT_EQ(FindScontrol("", testing::FakeEnv({{"PATH", "/nonexistent:" + slurm.dir}}), {}), slurm.dir + "/scontrol");
  // --scontrol wins, and only an executable one counts.
  EXPECT_EQ(FindScontrol(slurm.dir + "/scontrol", testing::FakeEnv({}), {}), slurm.dir + "/scontrol");
  EXPECT_EQ(FindScontrol(slurm.plain + "/scontrol", testing::FakeEnv({{"PATH", slurm.dir}}), {}), "");
  EXPECT_EQ(ScontrolFolders().front(), "/usr/bin");  // Debian's slurm-client, OpenHPC
}

TEST(FindScontrol, DrainRunsTheFoundPathAndSaysSo) {
  FakeSlurm slurm;
  DrainOutcome ran = Drain(slurm.dir + "/scontrol", "gpu07", "lab_check: GPU3 x");
  EXPECT_TRUE(ran.slurm_present);
  EXPECT_TRUE(ran.ok) << ran.error;
  EXPECT_EQ(ran.command, slurm.dir + "/scontrol update nodename=gpu07 state=drain reason=\"lab_check: GPU3 x\"");
  DrainOutcome none = Drain("", "gpu07", "lab_check: GPU3 x");
  EXPECT_FALSE(none.slurm_present);
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("no Slurm here"), std::string::npos) << none.error;
}

TEST(HealthCheckContext, SlurmdsNodeNameWithoutAJob) {
  EXPECT_TRUE(InHealthCheckContext(testing::FakeEnv({{"SLURMD_NODENAME", "n1"}})));
  EXPECT_FALSE(InHealthCheckContext(testing::FakeEnv({{"SLURMD_NODENAME", "n1"}, {"SLURM_JOB_ID", "42"}})));  // a prolog
  EXPECT_FALSE(InHealthCheckContext(testing::FakeEnv({})));
  // The verdict and the drain must land before slurmd's kill at 60 s, the runner's give-up included.
  // 2 s from SIGTERM to SIGKILL (child_process.cpp), then the give-up, then --drain's Slurm calls
  // (reading the nodes, then the update, within one budget).
  EXPECT_LE(kHealthCheckTimeoutS + 2 + ChildSpec().give_up_after_kill_s + kSlurmBudgetS, 50);
  EXPECT_LT(kShowNodesTimeoutS, kSlurmBudgetS);
}

// A check that finished early leaves the Slurm calls the rest of slurmd's 60 s (5 s kept for the
// files); one that ran to its deadline keeps the fixed 10 s, which the sum above fits.
TEST(HealthCheckContext, SlurmCallsGetWhatTheCheckLeft) {
  EXPECT_DOUBLE_EQ(HealthCheckSlurmBudgetS(3), 52);
  EXPECT_DOUBLE_EQ(HealthCheckSlurmBudgetS(kHealthCheckTimeoutS + 2 + ChildSpec().give_up_after_kill_s), 18);  // 60 - 5 - 37
  EXPECT_DOUBLE_EQ(HealthCheckSlurmBudgetS(58), kSlurmBudgetS);
  EXPECT_DOUBLE_EQ(ShowNodesTimeoutS(kSlurmBudgetS), kShowNodesTimeoutS);
  EXPECT_DOUBLE_EQ(ShowNodesTimeoutS(50), 20);
}

}  // namespace
}  // namespace labcheck::node_check

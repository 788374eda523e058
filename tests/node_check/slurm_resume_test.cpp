// Issue 44 under a real Slurm (slurm_cluster.h): a node lab_check drained is resumed by a healthy
// run (after --resume-after runs, and from another boot id when its findings clear only with a
// reboot); an administrator's drain is never touched; with 2 of 10 nodes drained by lab_check and
// --drain-cap 20%, a third sick node is not drained (exit 4).
#include "slurm_cluster.h"

namespace labcheck::node_check {
namespace {

// Issue 44: a node lab_check drained comes back by itself once a run finds it healthy (the
// simulated machine swapped for a healthy one), and says what it ran. The sick machine's findings
// (a lowered power limit, a slow card) clear without a reboot; health-faults.json's XID 79 would not.
TEST_F(SlurmCluster, ANodeLabCheckDrainedIsResumedByAHealthyRun) {
  testing::Run sick = Check("course-power-capped.json");
  EXPECT_EQ(sick.outcome.exit_code, 1) << sick.outcome.err;
  WaitFor("drained");
  ASSERT_EQ(State(), "drained") << sick.outcome.err;
  testing::Run healthy = Check("course-4x4080.json");
  EXPECT_EQ(healthy.outcome.exit_code, 0) << healthy.outcome.err;
  EXPECT_EQ(healthy.line, "OK");
  EXPECT_NE(healthy.outcome.err.find(std::string("ran: ") + Which("scontrol") + " update nodename=" + kNode + " state=resume"),
            std::string::npos)
      << healthy.outcome.err;
  WaitFor("idle");
  EXPECT_EQ(State(), "idle");
  EXPECT_EQ(Reason(), "");
}

// An administrator's reason is never lab_check's to clear or to overwrite, healthy run or not.
TEST_F(SlurmCluster, AnAdministratorsDrainIsLeftAsItIs) {
  const std::string reason = "fan replaced, ticket 4711";
  ASSERT_EQ("", Scontrol({"update", std::string("nodename=") + kNode, "state=drain", "reason=" + reason}));
  WaitFor("drained");
  testing::Run healthy = Check("course-4x4080.json");
  EXPECT_EQ(healthy.outcome.exit_code, 0) << healthy.outcome.err;
  EXPECT_NE(healthy.outcome.err.find("already drained by someone else: " + reason + "; left as it is"), std::string::npos)
      << healthy.outcome.err;
  EXPECT_EQ(healthy.outcome.err.find("state=resume"), std::string::npos) << healthy.outcome.err;
  EXPECT_EQ(State(), "drained");
  EXPECT_EQ(Reason(), reason);
  testing::Run sick = Check("health-faults.json");
  EXPECT_EQ(sick.outcome.exit_code, 1) << sick.outcome.err;  // out of service, as a FAIL should leave it
  EXPECT_NE(sick.outcome.err.find("already drained by someone else: " + reason), std::string::npos) << sick.outcome.err;
  EXPECT_EQ(sick.outcome.err.find("state=drain"), std::string::npos) << sick.outcome.err;
  EXPECT_EQ(State(), "drained");
  EXPECT_EQ(Reason(), reason);
}

// The case: 2 of the partition's 10 nodes already drained by lab_check and --drain-cap 20%:
// a third sick node stays in service, the message says why, exit 4, and --out records the decision.
TEST_F(SlurmCluster, TheDrainCapHoldsAThirdDrainOfTen) {
  for (const char* other : {"labnode2", "labnode3"})
    ASSERT_EQ("", Scontrol({"update", std::string("nodename=") + other, "state=drain",
                          "reason=lab_check: LC203 GPU0 (0000:01:00.0) 2 uncorrected ECC errors since the driver loaded"}));
  const std::string out = dir_ + "/capped.json";
  testing::Run sick = Check("health-faults.json", {"--drain-cap", "20%", "--out", out});
  EXPECT_EQ(sick.outcome.exit_code, 4) << sick.outcome.err;
  EXPECT_EQ(sick.line.rfind("FAIL: LC110 GPU0 ", 0), 0u) << sick.line;  // the findings stay in the report
  EXPECT_NE(sick.outcome.err.find("drain cap reached: 2 of 10 nodes of gpu drained by lab_check (cap 20%)"), std::string::npos)
      << sick.outcome.err;
  EXPECT_EQ(sick.outcome.err.find("state=drain"), std::string::npos) << sick.outcome.err;
  EXPECT_EQ(State(), "idle");
  const Result<std::string> text = ReadFile(out);
  ASSERT_TRUE(text.ok());
  const json report = json::parse(text.value());
  EXPECT_EQ(report["drain"]["action"], "held_by_cap");
  EXPECT_EQ(report["drain"]["cap"]["drained_by_lab_check"], 2);
  EXPECT_EQ(report["drain"]["cap"]["nodes"], kNodes);
  EXPECT_EQ(report["verdict"], "FAIL");
  // A cap of 3 nodes has room for it.
  testing::Run again = Check("health-faults.json", {"--drain-cap", "3"});
  EXPECT_EQ(again.outcome.exit_code, 1) << again.outcome.err;
  WaitFor("drained");
  EXPECT_EQ(State(), "drained");
}

TEST_F(SlurmCluster, ResumeAfterTwoWaitsForTheSecondHealthyRun) {
  EXPECT_EQ(Check("course-power-capped.json").outcome.exit_code, 1);
  WaitFor("drained");
  testing::Run first = Check("course-4x4080.json", {"--resume-after", "2"});
  EXPECT_EQ(first.outcome.exit_code, 0) << first.outcome.err;
  EXPECT_NE(first.outcome.err.find("healthy 1 run(s) in a row of 2 (--resume-after): not resumed yet"), std::string::npos)
      << first.outcome.err;
  EXPECT_EQ(State(), "drained");
  testing::Run second = Check("course-4x4080.json", {"--resume-after", "2"});
  EXPECT_NE(second.outcome.err.find("state=resume"), std::string::npos) << second.outcome.err;
  WaitFor("idle");
  EXPECT_EQ(State(), "idle");
}

// XID 79 in the kernel log clears only with a reboot: the drain records this boot's id, and a
// healthy run (the log read afresh, as after a reboot) resumes it only once the id has changed.
TEST_F(SlurmCluster, ARebootClassDrainIsResumedOnlyFromAnotherBoot) {
  const std::string boot_id = dir_ + "/boot_id", log = dir_ + "/kern-79.log", clean = dir_ + "/kern-clean.log";
  const std::string boot = "[    0.000000] Linux version 6.1.0-28-amd64\n[   12.3] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05\n";
  std::ofstream(log) << boot << "[ 9500.0] NVRM: Xid (PCI:0000:41:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n";
  std::ofstream(clean) << boot;
  std::ofstream(boot_id) << "11111111-1111-1111-1111-111111111111\n";
  const std::vector<std::pair<std::string, std::string>> env = {{"LABCHECK_BOOT_ID_FILE", boot_id}};
  testing::Run sick = Check("course-4x4080.json", {"--kernel-log", log}, env);
  EXPECT_EQ(sick.outcome.exit_code, 1) << sick.outcome.err;
  WaitFor("drained");
  EXPECT_NE(Reason().find("LC110 GPU1 (0000:41:00.0) fell off the bus (XID 79): reboot"), std::string::npos) << Reason();
  testing::Run same_boot = Check("course-4x4080.json", {"--kernel-log", clean}, env);
  EXPECT_EQ(same_boot.outcome.exit_code, 0) << same_boot.outcome.err;
  EXPECT_NE(same_boot.outcome.err.find("has not rebooted since (same boot id): not resumed"), std::string::npos)
      << same_boot.outcome.err;
  EXPECT_EQ(State(), "drained");
  std::ofstream(boot_id) << "22222222-2222-2222-2222-222222222222\n";
  testing::Run rebooted = Check("course-4x4080.json", {"--kernel-log", clean}, env);
  EXPECT_NE(rebooted.outcome.err.find("state=resume"), std::string::npos) << rebooted.outcome.err;
  WaitFor("idle");
  EXPECT_EQ(State(), "idle");
}

}  // namespace
}  // namespace labcheck::node_check

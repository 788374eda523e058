// What --drain decides, branch by branch, on what Slurm shows and what the state file holds.
#include <gtest/gtest.h>

#include "node_check/slurm/drain_policy.h"

namespace labcheck::node_check {
namespace {

constexpr const char* kOurs = "lab_check: GPU0 (0000:01:00.0) 2 uncorrected ECC errors since boot";
constexpr const char* kOursReboot = "lab_check: GPU1 (0000:41:00.0) XID 79 (GPU has fallen off the bus): reboot";

// n1 (judged) and 9 more nodes of "gpu"; n1's state and reason as given.
std::vector<SlurmNode> Cluster(const std::string& state, const std::string& reason, int others_drained_by_lab_check = 0) {
  std::vector<SlurmNode> nodes = {{"n1", state, {"gpu"}, reason}};
  for (int i = 2; i <= 10; ++i)
    nodes.push_back({"n" + std::to_string(i), i - 1 <= others_drained_by_lab_check ? "IDLE+DRAIN" : "IDLE", {"gpu"},
                     i - 1 <= others_drained_by_lab_check ? kOurs : ""});
  return nodes;
}

DrainInputs Inputs(bool healthy, const std::vector<SlurmNode>& nodes, std::optional<ResumeState> state = std::nullopt) {
  DrainInputs in;
  in.healthy = healthy;
  in.node = "n1";
  in.nodes = &nodes;
  in.state = std::move(state);
  in.boot_id = "boot-A";
  return in;
}

TEST(DrainPolicy, UnhealthyIdleNodeIsDrainedAndTheCountStartsAgain) {
  const auto nodes = Cluster("IDLE", "");
  const DrainDecision d = DecideDrain(Inputs(false, nodes, ResumeState{1, std::nullopt, ""}), {});
  EXPECT_EQ(d.action, DrainAction::Drain);
  EXPECT_STREQ(DrainActionKey(d.action), "drained");
  EXPECT_EQ(d.state_change, StateChange::Remove);  // no reboot to wait for: no record needed
  ASSERT_TRUE(d.cap);
  EXPECT_FALSE(d.cap->reached());
}

TEST(DrainPolicy, AnotherReasonIsNeverTouched) {
  for (const char* state : {"IDLE+DRAIN", "MIXED+DRAIN", "DOWN*+DRAIN", "DOWN"}) {
    const auto nodes = Cluster(state, "bad fan, ticket 4711");
    EXPECT_EQ(DecideDrain(Inputs(false, nodes), {}).action, DrainAction::LeftAsIs) << state;
    EXPECT_EQ(DecideDrain(Inputs(true, nodes), {}).action, DrainAction::LeftAsIs) << state;
  }
  // Drained with no reason at all is not ours either (NHC: "no note set").
  const auto bare = Cluster("IDLE+DRAIN", "");
  EXPECT_EQ(DecideDrain(Inputs(true, bare), {}).action, DrainAction::LeftAsIs);
}

TEST(DrainPolicy, TheCapHoldsADrainThatWouldPassIt) {
  const auto nodes = Cluster("IDLE", "", 2);
  DrainPolicy policy;
  policy.cap = {20, true};
  const DrainDecision d = DecideDrain(Inputs(false, nodes), policy);
  EXPECT_EQ(d.action, DrainAction::HeldByCap);
  EXPECT_STREQ(DrainActionKey(d.action), "held_by_cap");
  ASSERT_TRUE(d.cap);
  EXPECT_EQ(d.cap->drained, 2);
  EXPECT_EQ(d.cap->nodes, 10);
  // A node lab_check drained already adds nothing: its reason is updated whatever the count.
  const auto ours = Cluster("IDLE+DRAIN", kOurs, 2);
  EXPECT_EQ(DecideDrain(Inputs(false, ours), policy).action, DrainAction::Drain);
  // Slurm's list could not be read: the drain is still tried (and fails, most likely, alike).
  DrainInputs blind = Inputs(false, nodes);
  blind.nodes = nullptr;
  EXPECT_EQ(DecideDrain(blind, policy).action, DrainAction::Drain);
}

TEST(DrainPolicy, HealthyAgainIsResumedOnlyWhenLabCheckDrainedIt) {
  for (const char* state : {"IDLE+DRAIN", "MIXED+DRAIN"}) {
    const auto nodes = Cluster(state, kOurs);
    const DrainDecision d = DecideDrain(Inputs(true, nodes), {});
    EXPECT_EQ(d.action, DrainAction::Resume) << state;
    EXPECT_EQ(d.state_change, StateChange::Remove);
  }
  const auto idle = Cluster("IDLE", "");
  EXPECT_EQ(DecideDrain(Inputs(true, idle), {}).action, DrainAction::None);
  // Slurm does not list the node: nothing to resume.
  DrainInputs other = Inputs(true, idle);
  other.node = "elsewhere";
  EXPECT_EQ(DecideDrain(other, {}).action, DrainAction::None);
}

// A job step given 2 of 8 GPUs judged those two: the drain may be over a third card.
TEST(DrainPolicy, AJobsGpusAloneNeverResumeTheNode) {
  const auto nodes = Cluster("MIXED+DRAIN", kOurs);
  DrainInputs in = Inputs(true, nodes);
  in.whole_node = false;
  EXPECT_EQ(DecideDrain(in, {}).action, DrainAction::NotWholeNode);
  in.healthy = false;
  EXPECT_EQ(DecideDrain(in, {}).action, DrainAction::Drain);  // a sick card of the job still drains
}

TEST(DrainPolicy, ResumeAfterCountsHealthyRunsInARow) {
  const auto nodes = Cluster("IDLE+DRAIN", kOurs);
  DrainPolicy policy;
  policy.resume_after = 2;
  const DrainDecision first = DecideDrain(Inputs(true, nodes), policy);
  EXPECT_EQ(first.action, DrainAction::WaitHealthyRuns);
  EXPECT_EQ(first.state_change, StateChange::Write);
  EXPECT_EQ(first.next.healthy_runs, 1);
  const DrainDecision second = DecideDrain(Inputs(true, nodes, first.next), policy);
  EXPECT_EQ(second.action, DrainAction::Resume);
  // An unhealthy run between them starts the count again.
  const DrainDecision sick = DecideDrain(Inputs(false, nodes, first.next), policy);
  EXPECT_EQ(sick.state_change, StateChange::Remove);
}

TEST(DrainPolicy, ARebootClassDrainWaitsForAnotherBoot) {
  const auto idle = Cluster("IDLE", "");
  DrainInputs sick = Inputs(false, idle);
  sick.needs_reboot = true;
  const DrainDecision drained = DecideDrain(sick, {});
  EXPECT_EQ(drained.action, DrainAction::Drain);
  EXPECT_EQ(drained.state_change, StateChange::Write);
  EXPECT_EQ(drained.next.reboot_boot_id, "boot-A");

  const auto nodes = Cluster("IDLE+DRAIN", kOursReboot);
  const DrainDecision same_boot = DecideDrain(Inputs(true, nodes, drained.next), {});
  EXPECT_EQ(same_boot.action, DrainAction::WaitReboot);
  EXPECT_EQ(same_boot.state_change, StateChange::Keep);
  DrainInputs rebooted = Inputs(true, nodes, drained.next);
  rebooted.boot_id = "boot-B";
  EXPECT_EQ(DecideDrain(rebooted, {}).action, DrainAction::Resume);
  // With --resume-after 2 the runs are counted from the reboot on.
  DrainPolicy twice;
  twice.resume_after = 2;
  const DrainDecision one = DecideDrain(rebooted, twice);
  EXPECT_EQ(one.action, DrainAction::WaitHealthyRuns);
  EXPECT_FALSE(one.next.reboot_boot_id);
}

TEST(DrainPolicy, WithoutItsRecordARebootClassReasonIsNotResumed) {
  const auto nodes = Cluster("IDLE+DRAIN", kOursReboot);
  const DrainDecision d = DecideDrain(Inputs(true, nodes), {});
  EXPECT_EQ(d.action, DrainAction::NoRecordForReboot);
  EXPECT_EQ(d.state_change, StateChange::Keep);
  // A record without a boot id (an ordinary drain) resumes whatever the reason's words.
  EXPECT_EQ(DecideDrain(Inputs(true, nodes, ResumeState{}), {}).action, DrainAction::Resume);
}

}  // namespace
}  // namespace labcheck::node_check

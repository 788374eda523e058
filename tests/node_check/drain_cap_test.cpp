// --drain-cap: what the flag accepts, how many nodes a cap allows, and the count per partition.
#include <gtest/gtest.h>

#include "node_check/slurm/drain_cap.h"

namespace labcheck::node_check {
namespace {

SlurmNode Node(const std::string& name, const std::string& state = "IDLE", const std::string& reason = "",
               std::vector<std::string> partitions = {"gpu"}) {
  return {name, state, std::move(partitions), reason};
}

// 10 nodes of "gpu"; n01 is the one being judged.
std::vector<SlurmNode> Partition(int drained_by_lab_check, int drained_by_admin = 0) {
  std::vector<SlurmNode> nodes;
  for (int i = 1; i <= 10; ++i) nodes.push_back(Node("n" + std::string(i < 10 ? "0" : "") + std::to_string(i)));
  for (int i = 0; i < drained_by_lab_check; ++i) nodes[1 + i] = Node(nodes[1 + i].name, "IDLE+DRAIN", "lab_check: GPU0 x");
  for (int i = 0; i < drained_by_admin; ++i) nodes[9 - i] = Node(nodes[9 - i].name, "IDLE+DRAIN", "fan");
  return nodes;
}

TEST(DrainCap, AcceptsNodesOrAPercentage) {
  ASSERT_TRUE(ParseDrainCap("3"));
  EXPECT_FALSE(ParseDrainCap("3")->percent);
  EXPECT_EQ(ParseDrainCap("3")->value, 3);
  ASSERT_TRUE(ParseDrainCap("20%"));
  EXPECT_TRUE(ParseDrainCap("20%")->percent);
  EXPECT_EQ(ParseDrainCap("20%")->Text(), "20%");
  EXPECT_TRUE(ParseDrainCap("100%"));
  for (const char* bad : {"0", "0%", "150%", "abc", "", "%", "-1", "2.5", "20 %", "1e3"}) EXPECT_FALSE(ParseDrainCap(bad)) << bad;
}

TEST(DrainCap, APercentageRoundsDownAndAllowsAtLeastOne) {
  EXPECT_EQ(DrainCap({20, true}).NodesAllowed(10), 2);
  EXPECT_EQ(kDefaultDrainCap.NodesAllowed(24), 2);  // 2.4
  EXPECT_EQ(kDefaultDrainCap.NodesAllowed(5), 1);   // 0.5, but one sick node may still go
  EXPECT_EQ(DrainCap({3, false}).NodesAllowed(1000), 3);
}

TEST(DrainCap, TwoOfTenDrainedAndTwentyPercentHoldsTheThird) {
  const std::optional<CapCount> c = CountDrainedByLabCheck(Partition(2), "n01", {20, true});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->partition, "gpu");
  EXPECT_EQ(c->drained, 2);
  EXPECT_EQ(c->nodes, 10);
  EXPECT_EQ(c->allowed, 2);
  EXPECT_TRUE(c->reached());
  // One drained: the second may go.
  EXPECT_FALSE(CountDrainedByLabCheck(Partition(1), "n01", {20, true})->reached());
  // An administrator's drains are not lab_check's to count.
  EXPECT_FALSE(CountDrainedByLabCheck(Partition(1, 5), "n01", {20, true})->reached());
}

TEST(DrainCap, EveryPartitionOfTheNodeCounts) {
  std::vector<SlurmNode> nodes = Partition(0);
  nodes[0].partitions = {"gpu", "debug"};
  nodes.push_back(Node("d1", "IDLE+DRAIN", "lab_check: x", {"debug"}));
  nodes.push_back(Node("d2", "IDLE", "", {"debug"}));
  // debug: 3 nodes, one drained by lab_check; 10 % of 3 allows one.
  const std::optional<CapCount> c = CountDrainedByLabCheck(nodes, "n01", kDefaultDrainCap);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->partition, "debug");
  EXPECT_TRUE(c->reached());
  // A node Slurm does not list, or one in no partition: nothing to count.
  EXPECT_FALSE(CountDrainedByLabCheck(nodes, "elsewhere", kDefaultDrainCap));
  nodes[0].partitions.clear();
  EXPECT_FALSE(CountDrainedByLabCheck(nodes, "n01", kDefaultDrainCap));
}

}  // namespace
}  // namespace labcheck::node_check

// The InfiniBand/RoCE ports (network_ports.h, network_port_findings.cpp) on a fake sysfs: read as
// the kernel writes them, their counters' growth across the check, and the findings that name
// device and port, only when --expect-ib asks.
#include "node_check/scan/network_ports.h"

#include <gtest/gtest.h>

#include "fake_sysfs.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;

using NetworkPorts = testing::FakeSysTest;

std::vector<std::string> Lines(const NodeVerdict& v) {
  std::vector<std::string> texts;
  for (const Finding& f : v.findings)
    if (f.item.rfind("network_port", 0) == 0) texts.push_back(FindingText(f, Lang::En));
  return texts;
}

NodeExpectations ExpectIb(int ports) {
  NodeExpectations e;
  e.ib_ports = ports;
  return e;
}

TEST_F(NetworkPorts, ReadsStateRateAndCounters) {
  testing::AddIbPortsOneDownOneHalf(dir_);
  const json ports = ReadNetworkPorts(dir_);
  ASSERT_EQ(ports.size(), 4u) << ports.dump();
  EXPECT_EQ(ports[0]["state"], "ACTIVE");
  EXPECT_EQ(ports[0]["phys_state"], "LinkUp");
  EXPECT_EQ(ports[0]["rate_gbit"], 400.0);
  EXPECT_EQ(ports[1]["state"], "DOWN");
  EXPECT_EQ(ports[2]["rate_gbit"], 200.0);
  EXPECT_EQ(ports[3]["link_downed"], 0);
}

TEST_F(NetworkPorts, APortDownAndAPortAtHalfRateAreNamed) {
  testing::AddIbPortsOneDownOneHalf(dir_);
  const json payload = {{"network_ports", ReadNetworkPorts(dir_)}};
  EXPECT_EQ(Lines(JudgeNode(payload, ExpectIb(4))),
            (std::vector<std::string>{"mlx5_1 port 1 (compute): down (DOWN, Disabled)", "mlx5_2 port 1 (compute): 200 Gb/s, its compute siblings 400"}));
  EXPECT_EQ(Lines(JudgeNode(payload, ExpectIb(6))).front(), "4 InfiniBand ports, expected 6");
  // A down port's stale rate is no sibling to measure against.
  json faster_but_down = payload;
  faster_but_down["network_ports"][1]["rate_gbit"] = 800.0;
  EXPECT_EQ(Lines(JudgeNode(faster_but_down, ExpectIb(4))).size(), 2u);
  // Not asked: nothing said about them.
  EXPECT_TRUE(Lines(JudgeNode(payload, {})).empty());
}

TEST_F(NetworkPorts, NoPortsAndNoExpectationSayNothing) {
  const json payload = {{"network_ports", ReadNetworkPorts(dir_)}};
  EXPECT_TRUE(payload["network_ports"].empty());
  EXPECT_TRUE(Lines(JudgeNode(payload, {})).empty());
  EXPECT_EQ(Lines(JudgeNode(payload, ExpectIb(1))), std::vector<std::string>{"0 InfiniBand ports, expected 1"});
}

TEST_F(NetworkPorts, CountersGrowingDuringTheCheckFail) {
  testing::AddIbPort(dir_, {});
  const json before = ReadNetworkPorts(dir_);
  testing::FakeIbPort flapping;
  flapping.link_downed = 2;
  flapping.symbol_error = 7;
  testing::AddIbPort(dir_, flapping);
  const json after = WithCounterGrowth(before, ReadNetworkPorts(dir_));
  EXPECT_EQ(after[0]["link_downed_growth"], 2);
  EXPECT_EQ(Lines(JudgeNode({{"network_ports", after}}, ExpectIb(1))),
            (std::vector<std::string>{"mlx5_0 port 1 (compute): link_downed grew by 2 during the check",
                                      "mlx5_0 port 1 (compute): symbol_error grew by 7 during the check"}));
  // Counts left from before the check are history, not a fault now.
  EXPECT_TRUE(Lines(JudgeNode({{"network_ports", WithCounterGrowth(after, after)}}, ExpectIb(1))).empty());
}

TEST_F(NetworkPorts, ARoceInterfaceThatIsDownFails) {
  testing::FakeIbPort roce;
  roce.link_layer = "Ethernet";
  roce.rate = "100 Gb/sec (4X EDR)";
  testing::AddIbPort(dir_, roce);
  testing::WriteAttribute(std::filesystem::path(dir_) / "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "ens1f0np0");
  testing::WriteAttribute(std::filesystem::path(dir_) / "class/net/ens1f0np0/operstate", "down");
  testing::WriteAttribute(std::filesystem::path(dir_) / "class/net/ens1f0np0/speed", "-1");
  const json ports = ReadNetworkPorts(dir_);
  EXPECT_EQ(ports[0]["netdev"], "ens1f0np0");
  NodeExpectations expect_roce;
  expect_roce.roce_ports = 1;
  EXPECT_EQ(Lines(JudgeNode({{"network_ports", ports}}, expect_roce)),
            std::vector<std::string>{"mlx5_0 port 1 (compute): interface ens1f0np0 is not up"});
}

}  // namespace
}  // namespace labcheck::node_check

#include "cluster/nic_discovery.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "platform/files.h"

namespace labcheck::cluster {
namespace {

namespace fs = std::filesystem;

class FakeSys : public ::testing::Test {
 protected:
  void SetUp() override { root_ = *MakePrivateTempDir("nic-test"); }
  void TearDown() override { RemoveTree(root_); }
  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(root_ + "/" + rel).parent_path());
    std::ofstream(root_ + "/" + rel) << text << "\n";
  }
  void Port(const std::string& hca, int port, const std::string& rate, const std::string& state, const std::string& layer) {
    const std::string dir = "class/infiniband/" + hca + "/ports/" + std::to_string(port);
    Write(dir + "/rate", rate);
    Write(dir + "/state", state);
    Write(dir + "/link_layer", layer);
  }
  void Net(const std::string& name, const std::string& speed, const std::string& state, bool physical, int type = 1) {
    Write("class/net/" + name + "/speed", speed);
    Write("class/net/" + name + "/operstate", state);
    Write("class/net/" + name + "/type", std::to_string(type));
    if (physical) fs::create_directories(root_ + "/class/net/" + name + "/device");
  }
  std::string root_;
};

TEST_F(FakeSys, InfinibandPortsAddUpAndIpoibIsNotEthernet) {
  Port("mlx5_0", 1, "200 Gb/sec (4X HDR)", "4: ACTIVE", "InfiniBand");
  Port("mlx5_1", 1, "200 Gb/sec (4X HDR)", "4: ACTIVE", "InfiniBand");
  Port("mlx5_2", 1, "200 Gb/sec (4X HDR)", "1: DOWN", "InfiniBand");
  Net("ib0", "200000", "up", true, 32);
  Net("eno1", "1000", "up", true);
  Net("lo", "", "unknown", false);
  NicInventory nics = ReadNics(root_);
  ASSERT_EQ(nics.ib_ports.size(), 3u);
  EXPECT_EQ(nics.ib_ports[0].state, "ACTIVE");
  EXPECT_EQ(nics.ib_ports[2].state, "DOWN");
  ASSERT_EQ(nics.ethernet.size(), 1u);  // ib0 (IPoIB) and lo skipped
  EXPECT_EQ(nics.Kind(), "InfiniBand");
  EXPECT_EQ(nics.UsableCount(), 2);
  EXPECT_DOUBLE_EQ(*nics.InterNodeGBps(), 50.0);  // 2 × 200 Gb/s / 8
  EXPECT_EQ(nics.Describe(), "2× InfiniBand 200 Gb/s");
}

TEST_F(FakeSys, RoceCountsAsRdma) {
  Port("mlx5_0", 1, "100 Gb/sec (2X EDR)", "4: ACTIVE", "Ethernet");
  EXPECT_EQ(ReadNics(root_).Kind(), "RoCE");
}

TEST_F(FakeSys, EthernetOnlyPhysicalLinksThatAreUp) {
  Net("enp1s0", "10000", "up", true);
  Net("enp2s0", "-1", "down", true);
  Net("docker0", "10000", "up", false);
  Net("veth12", "10000", "up", false);
  NicInventory nics = ReadNics(root_);
  EXPECT_EQ(nics.Kind(), "Ethernet");
  EXPECT_EQ(nics.UsableCount(), 1);
  EXPECT_DOUBLE_EQ(*nics.InterNodeGBps(), 1.25);
  EXPECT_EQ(nics.Describe(), "1× Ethernet 10 Gb/s");
  ASSERT_EQ(nics.ethernet.size(), 4u);  // sorted: docker0, enp1s0, enp2s0, veth12
  EXPECT_EQ(nics.ethernet[2].name, "enp2s0");
  EXPECT_FALSE(nics.ethernet[2].speed_mbit.has_value());  // down: -1 is not a speed
}

TEST_F(FakeSys, NothingUsable) {
  NicInventory nics = ReadNics(root_);
  EXPECT_EQ(nics.Kind(), "none");
  EXPECT_FALSE(nics.InterNodeGBps().has_value());
}

TEST_F(FakeSys, JsonRoundTrip) {
  Port("mlx5_0", 1, "400 Gb/sec (4X NDR)", "4: ACTIVE", "InfiniBand");
  Net("eth0", "25000", "up", true);
  NicInventory back = NicInventory::FromJson(ReadNics(root_).ToJson());
  EXPECT_EQ(back.Describe(), "1× InfiniBand 400 Gb/s");
  EXPECT_DOUBLE_EQ(*back.InterNodeGBps(), 50.0);
  ASSERT_EQ(back.ethernet.size(), 1u);
  EXPECT_EQ(back.ethernet[0].speed_mbit, 25000);
}

TEST_F(FakeSys, Peermem) {
  EXPECT_FALSE(PeermemLoaded(root_));
  fs::create_directories(root_ + "/module/nvidia_peermem");
  EXPECT_TRUE(PeermemLoaded(root_));
}

TEST(IbRate, Parses) {
  EXPECT_EQ(ParseIbRate("100 Gb/sec (4X EDR)"), 100);
  EXPECT_EQ(ParseIbRate("56 Gb/sec (4X FDR)"), 56);
  EXPECT_EQ(ParseIbRate("rate"), std::nullopt);
}

}  // namespace
}  // namespace labcheck::cluster

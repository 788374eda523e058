// What the gate sees beyond the driver's own list (issue 45), with the real binary on simulated
// machines: a card on the PCI bus the driver lost (a fake sysfs beside a seven-card profile), and
// the driver's recovery action, said on a driver that has the field and not on one that lacks it;
// InfiniBand ports down or slow in a fake /sys/class/infiniband; a fatal NVSwitch SXid in --kernel-log.
#include <gtest/gtest.h>

#include "fake_sysfs.h"
#include "node_check/verdict/node_verdict.h"
#include "node_check_run.h"

namespace labcheck::node_check {
namespace {

using testing::NodeCheck;

class NodeCheckGateSim : public testing::FakeSysTest {
 protected:
  void SetUp() override {
    if (!testing::SimPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
    FakeSysTest::SetUp();
    sys_ = dir_;
    testing::AddHgxBoard(sys_);
  }
  std::string sys_;
};

bool Says(const std::string& line, const std::string& what) { return line.find(what) != std::string::npos; }

constexpr const char* kLost = "GPU 0000:9a:00.0 on the PCI bus but not in the driver";

TEST_F(NodeCheckGateSim, EightOnTheBusSevenInTheDriver) {
  testing::Run plain = NodeCheck("hgx-seven-in-driver.json", {}, {{"LABCHECK_SYS_ROOT", sys_}});
  EXPECT_EQ(plain.outcome.exit_code, 1) << plain.outcome.out << plain.outcome.err;
  EXPECT_TRUE(Says(plain.line, kLost)) << plain.line;

  testing::Run expected = NodeCheck("hgx-seven-in-driver.json", {"--expect-gpus", "8"}, {{"LABCHECK_SYS_ROOT", sys_}});
  EXPECT_EQ(expected.outcome.exit_code, 1);
  EXPECT_TRUE(Says(expected.line, "7 GPUs, expected 8")) << expected.line;
  EXPECT_TRUE(Says(expected.line, kLost)) << expected.line;

  // The whole board in the driver: the same bus says nothing; nor do faulty InfiniBand ports
  // without --expect-ib (a workstation's idle HCA is no fault).
  testing::AddIbPortsOneDownOneHalf(sys_);
  testing::Run whole = NodeCheck("hgx-8xh100-nvswitch.json", {"--json"}, {{"LABCHECK_SYS_ROOT", sys_}});
  EXPECT_EQ(whole.outcome.exit_code, 0) << whole.line;
  EXPECT_EQ(whole.json["network_ports"].size(), 4u) << whole.outcome.out;
  EXPECT_TRUE(whole.json["findings"].empty()) << whole.outcome.out;
  EXPECT_EQ(whole.json["pci_bus"]["gpus"].size(), 8u) << whole.outcome.out;
  EXPECT_EQ(whole.json["pci_bus"]["nvswitches"].size(), 4u) << whole.outcome.out;
}

TEST_F(NodeCheckGateSim, ARunGivenSomeCardsComparesOnlyThoseAndSaysSo) {
  testing::Run some = NodeCheck("hgx-seven-in-driver.json", {"--json"},
                                {{"LABCHECK_SYS_ROOT", sys_}, {"CUDA_VISIBLE_DEVICES", "0,1"}});
  EXPECT_EQ(some.outcome.exit_code, 0) << some.outcome.out << some.outcome.err;
  EXPECT_EQ(some.json["pci_bus"]["partial"], "CUDA_VISIBLE_DEVICES=0,1") << some.outcome.out;
}

TEST_F(NodeCheckGateSim, APortDownAndAPortAtHalfRate) {
  testing::AddIbPortsOneDownOneHalf(sys_);
  testing::Run run = NodeCheck("hgx-8xh100-nvswitch.json", {"--expect-ib", "4"}, {{"LABCHECK_SYS_ROOT", sys_}});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  EXPECT_EQ(run.line, "FAIL: LC108 mlx5_1 port 1: down (DOWN, Disabled); LC108 mlx5_2 port 1: 200 Gb/s, its siblings 400");
}

TEST_F(NodeCheckGateSim, NvLinkReplaysGrowingDuringTheCheck) {
  testing::Run run = NodeCheck("hgx-nvlink-replays.json", {"--json"});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.out << run.outcome.err;
  EXPECT_EQ(run.json["line"], "FAIL: LC404 GPU6 (0000:ba:00.0) NVLink 3: replay errors grew by 12 during the check");
  // The totals stay in the JSON: 40 before, 52 after.
  bool seen = false;
  for (const auto& link : run.json["gpus"][6]["nvlink_errors"])
    if (link["link"] == 3) seen = link["replay"] == 52 && link["replay_growth"] == 12;
  EXPECT_TRUE(seen) << run.json["gpus"][6].dump();
  // The total since the driver loaded is a monitor finding beside it, which does not fail the node.
  ASSERT_EQ(run.json["findings"].size(), 2u) << run.outcome.out;
  const json& total = run.json["findings"][1];
  EXPECT_EQ(total["text"], "GPU6 (0000:ba:00.0) NVLink 3: 52 replay errors since the driver loaded");
  EXPECT_EQ(total["code"], "LC405");
  EXPECT_EQ(total["severity"], "monitor");
  EXPECT_EQ(total["fails"], false);
}

TEST_F(NodeCheckGateSim, AFatalSxidInTheKernelLogFails) {
  const std::string log = sys_ + "/kern.log";
  testing::WriteAttribute(log,
                          "[  812.000001] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)\n"
                          "[  912.000002] nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 20034, Fatal, Link 30 LTSSM Fault Up");
  testing::Run run = NodeCheck("hgx-8xh100-nvswitch.json", {"--json", "--kernel-log", log});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.out << run.outcome.err;
  EXPECT_EQ(run.json["line"], "FAIL: LC107 NVSwitch 0000:07:00.0 SXid 20034 (fatal): Link 30 LTSSM Fault Up; reboot the node");
  EXPECT_EQ(run.json["sxids"].size(), 2u) << run.outcome.out;
  // The non-fatal one alone is only listed (judged on the same facts, without a second run).
  nlohmann::json payload = {{"health", {{"sxid_kernel_log", {run.json["sxids"][0]}}}}};
  for (const Finding& f : JudgeNode(payload, {}).findings) EXPECT_NE(f.item, "nvswitch_sxid") << FindingText(f, Lang::En);
}

TEST_F(NodeCheckGateSim, TheDriversRecoveryActionNamesTheCard) {
  testing::Run reset = NodeCheck("hgx-recovery-reset.json", {"--json"});
  EXPECT_EQ(reset.outcome.exit_code, 1) << reset.outcome.err;
  EXPECT_EQ(reset.json["line"], "FAIL: LC304 GPU2 (0000:3a:00.0) the driver asks for a GPU reset");
  // No LABCHECK_SYS_ROOT: the real /sys is never read for a simulated machine.
  EXPECT_TRUE(reset.json["pci_bus"].contains("na")) << reset.outcome.out;
  EXPECT_TRUE(reset.json["network_ports"].contains("na")) << reset.outcome.out;

  testing::Run old = NodeCheck("course-old-driver-reset.json");
  EXPECT_FALSE(Says(old.line, "the driver asks")) << old.line;
}

// Issue 45, item 4: SRAM ECC counts (nvmlDeviceGetMemoryErrorCounter, NVML_MEMORY_LOCATION_SRAM).
// Uncorrected ones fail the node (reset the card); corrected ones over Azure's 10,000 are a monitor
// finding, and under --sram-corrected-warn nothing.
TEST_F(NodeCheckGateSim, SramUncorrectedFailsCorrectedIsMonitored) {
  testing::Run run = NodeCheck("hgx-sram-errors.json", {"--json"});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  EXPECT_EQ(run.json["line"], "FAIL: LC210 GPU2 (0000:3a:00.0) 2 uncorrected SRAM ECC errors since the driver loaded");
  ASSERT_EQ(run.json["findings"].size(), 2u) << run.outcome.out;
  EXPECT_EQ(run.json["findings"][1]["code"], "LC209");
  EXPECT_EQ(run.json["findings"][1]["gpu"], 4);
  EXPECT_EQ(run.json["findings"][1]["severity"], "monitor");
  EXPECT_EQ(run.json["findings"][1]["text"], "GPU4 (0000:9a:00.0) 25000 corrected SRAM ECC errors since the driver loaded (threshold 10000)");
  testing::Run loose = NodeCheck("hgx-sram-errors.json", {"--json", "--sram-corrected-warn", "30000"});
  EXPECT_EQ(loose.json["findings"].size(), 1u) << loose.outcome.out;
}

}  // namespace
}  // namespace labcheck::node_check

// What the gate sees beyond the driver's own list (issue 45), with the real binary on simulated
// machines: a card on the PCI bus the driver lost (a fake sysfs beside a seven-card profile), and
// the driver's recovery action, said on a driver that has the field and not on one that lacks it;
// InfiniBand ports down or slow in a fake /sys/class/infiniband; a fatal NVSwitch SXid in --kernel-log.
#include <gtest/gtest.h>

#include "daemon_support.h"
#include "fake_network_layouts.h"
#include "fake_sysfs.h"
#include "platform/files.h"
#include "runner/cancel.h"
#include "runner/child_process.h"
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
  // Plain folders for a tree: no place on the bus, so every port is judged as a compute rail.
  EXPECT_EQ(run.line, "FAIL: LC108 mlx5_1 port 1 (compute): down (DOWN, Disabled); LC108 mlx5_2 port 1 (compute): 200 Gb/s, its compute "
                      "siblings 400");
}

// Issue 53 with the real binary: imbue's H100 node layout (fake_network_layouts.h) with the
// simulated board's GPUs at their bus ids, its storage cards' second ports uncabled: OK, and the
// roles in --json and the metrics; one InfiniBand card lost beside the RoCE ports: FAIL naming it.
TEST_F(NodeCheckGateSim, StorageCardsBesideRailsByRole) {
  const std::string sys = dir_ + "/imbue", prom = dir_ + "/node.prom";
  testing::AddImbueH100(sys, {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb});
  testing::Run ok = NodeCheck("hgx-8xh100-nvswitch.json", {"--json", "--expect-ib", "8", "--expect-roce", "4", "--prometheus", prom},
                              {{"LABCHECK_SYS_ROOT", sys}});
  EXPECT_EQ(ok.outcome.exit_code, 0) << ok.outcome.out << ok.outcome.err;
  EXPECT_EQ(ok.json["line"], "OK") << ok.outcome.out;
  ASSERT_EQ(ok.json["network_ports"].size(), 12u) << ok.outcome.out;
  EXPECT_EQ(ok.json["network_ports"][0]["device"], "mlx5_0");
  EXPECT_EQ(ok.json["network_ports"][0]["role"], "compute");
  EXPECT_EQ(ok.json["network_ports"][0]["beside_gpu"], "0000:18:00.0");
  auto metrics = ReadFile(prom);
  ASSERT_TRUE(metrics.ok());
  EXPECT_TRUE(Says(*metrics, R"(lab_check_network_port_up{device="mlx5_2",port="1",pci_bus_id="0000:1b:00.1",role="other"} 0)")) << *metrics;

  testing::LoseRdmaDevice(sys, "mlx5_6");
  testing::Run lost = NodeCheck("hgx-8xh100-nvswitch.json", {"--json", "--expect-ib", "8", "--prometheus", prom}, {{"LABCHECK_SYS_ROOT", sys}});
  EXPECT_EQ(lost.outcome.exit_code, 1) << lost.outcome.err;
  EXPECT_EQ(lost.json["line"],
            "FAIL: LC109 7 InfiniBand ports, expected 8 (RoCE ports, 4, are counted apart: --expect-roce); LC407 InfiniBand card "
            "0000:9c:00.0 (compute) on the PCI bus but not in the RDMA stack: the driver lost it");
  EXPECT_TRUE(Says(lost.outcome.err, "warning: LC406 --expect-ib 8 counts InfiniBand ports only")) << lost.outcome.err;
  EXPECT_TRUE(Says(lost.outcome.err, "`lspci -s 0000:9c:00`")) << "the action names the card: " << lost.outcome.err;
  metrics = ReadFile(prom);
  ASSERT_TRUE(metrics.ok());
  EXPECT_TRUE(Says(*metrics, R"(lab_check_finding{code="LC407",severity="reboot",gpu="",uuid="",held="false",pci_bus_id="0000:9c:00.0",device="",port=""} 1)"))
      << *metrics;

  const std::string promtool = testing::Which("promtool");
  if (promtool.empty()) GTEST_SKIP() << "no promtool: install Debian's prometheus (scripts/install-deps.sh --with-tests)";
  ChildSpec check;
  check.argv = {"/bin/sh", "-c", "exec \"$0\" check metrics < \"$1\"", promtool, prom};
  check.timeout_s = 30;
  const ChildOutcome lint = RunChild(check, CancelToken::Never());
  EXPECT_TRUE(lint.exited_ok()) << lint.Describe() << "\n" << lint.out << lint.err;
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
  EXPECT_EQ(run.json["findings"][0]["pci_bus_id"], "0000:07:00.0") << "the switch's bus id, not only in the text";
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

// Issue 53 with the real binary on simulated machines: the kernel logs of tests/sim/kernel_logs/
// (the peers' fixtures re-pointed at a simulated card, each naming its source) through --kernel-log,
// NVLink errors on several links of one card, and the driver's recovery actions in CUDA 13.3's enum,
// a value the simulator does not know refused. The payload-level tests (fell_off_bus_findings_test.cpp)
// take every form; these take one of each kind end to end, each run costing seconds.
#include <fstream>

#include <gtest/gtest.h>

#include "node_check_run.h"

namespace labcheck::node_check {
namespace {

using testing::NodeCheck;

class NodeCheckKernelLogSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SimPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
  }
};

std::string SimLog(const std::string& name) { return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/kernel_logs/" + name; }

// "GPU has fallen off the bus" without an Xid number: the driver's line, and the three-line probe
// message as /dev/kmsg gives it (one record, "\x0a" inside).
TEST_F(NodeCheckKernelLogSim, FallenOffTheBusWithoutAnXidFailsAsRebootNamingTheCard) {
  testing::Run line = NodeCheck("course-4x4080.json", {"--json", "--kernel-log", SimLog("gpud-gpu-line.log")});
  EXPECT_EQ(line.outcome.exit_code, 1) << line.outcome.out << line.outcome.err;
  EXPECT_EQ(line.json["line"], "FAIL: LC110 GPU1 (0000:41:00.0) fell off the bus (driver line: GPU has fallen off the bus): reboot");
  ASSERT_EQ(line.json["findings"].size(), 1u) << line.outcome.out;
  EXPECT_EQ(line.json["findings"][0]["severity"], "reboot");
  EXPECT_EQ(line.json["findings"][0]["clears"], "reboot");
  EXPECT_EQ(line.json["xids"][0]["form"], "gpu_line");
  EXPECT_EQ(line.json["xids"][0]["reported_as"], "gpu_fell_off_bus");

  testing::Run probe = NodeCheck("course-4x4080.json", {"--kernel-log", SimLog("kmsg-probe-message.log")});
  EXPECT_EQ(probe.outcome.exit_code, 1) << probe.outcome.err;
  EXPECT_EQ(probe.line, "FAIL: LC110 GPU1 (0000:41:00.0) fell off the bus (at probe: not responding to commands): reboot");
}

// The older driver's "NVRM: Xid (0000:41:00): 14, …" is read (14 is IGNORE in NVIDIA's catalog).
// Beside it, an initialisation of the same card that failed once (a line written for this test in
// the driver's format): the card is in the driver now, so it is listed in --json only.
TEST_F(NodeCheckKernelLogSim, TheOldXidFormIsRead) {
  const std::string log = ::testing::TempDir() + "old-form-and-init.log";
  {
    std::ifstream fixture(SimLog("gpud-xid-old-form.log"));
    std::ofstream(log) << fixture.rdbuf() << "\n[   21.000001] NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x62:0x65:2522)\n";
  }
  testing::Run run = NodeCheck("course-4x4080.json", {"--json", "--kernel-log", log});
  EXPECT_EQ(run.outcome.exit_code, 0) << run.outcome.out << run.outcome.err;
  ASSERT_EQ(run.json["xids"].size(), 1u) << run.outcome.out;
  EXPECT_EQ(run.json["xids"][0]["gpu"], 1);
  EXPECT_EQ(run.json["xids"][0]["xid"], 14);
  EXPECT_EQ(run.json["xids"][0]["bucket"], "IGNORE");
  ASSERT_EQ(run.json["driver_messages"].size(), 1u) << run.outcome.out;
  EXPECT_EQ(run.json["driver_messages"][0]["kind"], "init_failed");
  EXPECT_EQ(run.json["driver_messages"][0]["pci"], "0000:41:00");
}

// NVLink5: a bit-error-rate notice NVIDIA's sheet says to ignore leaves the node in service; the
// NETIR unit's fault beside it fails it.
TEST_F(NodeCheckKernelLogSim, AnNvlink5NoticeIsOkAFaultFails) {
  testing::Run ok = NodeCheck("hgx-8xh100-nvswitch.json", {"--json", "--kernel-log", SimLog("nvlink5-ignorable.log")});
  EXPECT_EQ(ok.outcome.exit_code, 0) << ok.outcome.out << ok.outcome.err;
  ASSERT_EQ(ok.json["xids"].size(), 2u) << ok.outcome.out;
  EXPECT_EQ(ok.json["xids"][0]["decode"]["action"], "IGNORE");
  EXPECT_EQ(ok.json["xids"][0]["driver_version"], "570.124.06");
  testing::Run fault = NodeCheck("hgx-8xh100-nvswitch.json", {"--kernel-log", SimLog("nvlink5-fault.log")});
  EXPECT_EQ(fault.outcome.exit_code, 1) << fault.outcome.err;
  EXPECT_EQ(fault.line, "FAIL: LC301 GPU0 (0000:18:00.0) XID 149 (NVLINK: NETIR Error): reset the GPU");
}

TEST_F(NodeCheckKernelLogSim, NvlinkErrorsOnSeveralLinksOfOneCard) {
  testing::Run run = NodeCheck("hgx-nvlink-crc.json", {"--json"});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.out << run.outcome.err;
  EXPECT_EQ(run.json["line"],
            "FAIL: LC404 GPU3 (0000:5d:00.0) NVLink 2: flit CRC errors grew by 7 during the check; LC404 GPU3 (0000:5d:00.0) NVLink 7: "
            "recovery errors grew by 1 during the check");
  int monitored = 0;
  for (const auto& f : run.json["findings"]) monitored += f["code"] == "LC405";
  EXPECT_EQ(monitored, 3) << run.outcome.out;  // links 2, 7 and 11's totals since the driver loaded
}

TEST_F(NodeCheckKernelLogSim, EveryRecoveryActionIsNamedAndAnUnknownOneRefused) {
  testing::Run run = NodeCheck("hgx-recovery-actions.json", {"--json"});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  EXPECT_EQ(run.json["line"],
            "FAIL: LC308 GPU1 (0000:2a:00.0) the driver asks to drain peer-to-peer traffic; LC309 GPU2 (0000:3a:00.0) the driver asks for "
            "the IMEX domain to be recovered; LC304 GPU5 (0000:ab:00.0) the driver says the card runs at reduced capacity: drain and reset the GPU");
  const std::string profile = ::testing::TempDir() + "recovery-bus-reset.json";
  std::ofstream(profile) << R"({"base": ")" << testing::Profile("hgx-recovery-actions.json")
                         << R"(", "gpu_defaults": {"health": {"recovery_action": "bus_reset"}}})";
  testing::Run refused = NodeCheck("hgx-8xh100-nvswitch.json", {}, {{"LABCHECK_SIM_MACHINE", profile}});
  EXPECT_EQ(refused.outcome.exit_code, 1) << refused.outcome.out;
  EXPECT_NE(refused.outcome.err.find("nvsim: "), std::string::npos) << refused.outcome.err;
  EXPECT_NE(refused.outcome.err.find("\"bus_reset\" is none of"), std::string::npos) << refused.outcome.err;
}

}  // namespace
}  // namespace labcheck::node_check

// A card that fell off the bus or failed to initialise (fell_off_bus_findings.cpp), on payloads
// whose kernel log is the peers' own test cases (tests/gpu/testdata/kernel_log/, read by the real
// parser): each form alone fails the node as reboot-class naming the card; the log and the bus scan
// saying it of one card are one finding with both; the site's --xid-ignore 79 ignores every form.
// Then the other driver messages the survey took (docs/cluster-gate.md, "What the peers read"),
// NVLink5 XIDs by their decode, XID 154 beside the driver's field 230, and Drain P2P.
#include <gtest/gtest.h>

#include "gpu/health/driver_messages.h"
#include "gpu/health/kernel_log.h"
#include "node_check/findings/judge_node.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;

std::vector<std::string> LogFixture(const std::string& name) {
  Result<std::vector<std::string>> lines =
      gpu::health::ReadKernelLogLines(std::string(LAB_CHECK_SOURCE_DIR) + "/tests/gpu/testdata/kernel_log/" + name);
  EXPECT_TRUE(lines.ok()) << name;
  return lines.ok() ? *lines : std::vector<std::string>{};
}

// The health job's JSON of a log (gpu/jobs/health_job.cpp's fields), from the real parser.
json KernelLogJson(const std::vector<std::string>& lines) {
  json xids = json::array(), messages = json::array();
  for (const gpu::health::KernelXid& x : gpu::health::KernelXidsOf(lines)) {
    json one = {{"pci", x.pci}, {"xid", x.xid}, {"line", x.line}, {"form", x.form}};
    for (const gpu::health::XidEvidence& e : x.also) one["also"].push_back({{"form", e.form}, {"line", e.line}});
    if (!x.serial.empty()) one["serial"] = x.serial;
    if (!x.driver_version.empty()) one["driver_version"] = x.driver_version;
    xids.push_back(one);
  }
  for (const gpu::health::DriverMessage& m : gpu::health::DriverMessagesOf(lines)) {
    json one = {{"kind", m.kind}, {"line", m.line}, {"status", m.detail}};
    if (!m.pci.empty()) one["pci"] = m.pci;
    messages.push_back(one);
  }
  return {{"xid_kernel_log", xids}, {"driver_kernel_log", messages}};
}

// A node whose cards sit on the buses the fixtures name.
const char* const kFixtureBuses[] = {"0000:01:00.0", "0000:18:00.0", "0000:29:00.0", "0000:91:00.0", "0000:b3:00.0", "0000:0b:00.0"};

json FixtureNode(const std::vector<std::string>& log, const std::string& lost = "") {
  json p = {{"inventory", {{"gpus", json::array()}}}, {"health", {{"outcome", "ok"}, {"gpus", json::array()}}}};
  int index = 0;
  for (const char* bus : kFixtureBuses) {
    if (bus == lost) continue;
    p["inventory"]["gpus"].push_back({{"index", index}, {"name", "NVIDIA H100 80GB HBM3"}, {"pci_bus_id", bus}, {"memory_total_gib", 79.6}});
    p["health"]["gpus"].push_back({{"index", index}, {"pci_bus_id", bus}, {"facts", json::object()}});
    ++index;
  }
  p["health"].update(KernelLogJson(log));
  if (!lost.empty()) p["pci_bus"] = {{"gpus", json(std::vector<std::string>(std::begin(kFixtureBuses), std::end(kFixtureBuses)))}};
  return p;
}

std::string FellOffLine(const json& payload, const NodeExpectations& e = {}) { return VerdictLine(JudgeNode(payload, e), Lang::En); }

struct FellOffForm {
  const char* file;
  const char* card;      // as the line names the card the driver still lists
  const char* evidence;  // how the finding says it
};

class EachFallenForm : public ::testing::TestWithParam<FellOffForm> {};

TEST_P(EachFallenForm, FailsTheNodeAsRebootClassNamingTheCard) {
  const NodeVerdict v = JudgeNode(FixtureNode(LogFixture(GetParam().file)), {});
  EXPECT_EQ(VerdictLine(v, Lang::En), std::string("FAIL: LC110 ") + GetParam().card + " fell off the bus (" + GetParam().evidence + "): reboot");
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].severity, reference::Severity::Reboot);
  EXPECT_EQ(v.findings[0].clears, reference::Clears::Reboot);
  EXPECT_FALSE(v.findings[0].pci_bus_id.empty());
}

const char kFellOffLine[] = "driver line: GPU has fallen off the bus";
const char kFellOffProbe[] = "at probe: not responding to commands";

INSTANTIATE_TEST_SUITE_P(
    LogsHoldingOnlyIt, EachFallenForm,
    ::testing::Values(FellOffForm{"gpud-gpu-line.log", "GPU2 (0000:29:00.0)", kFellOffLine}, FellOffForm{"gpud-gpu-line-no-domain.log", "GPU1 (0000:18:00.0)", kFellOffLine},
                      FellOffForm{"gpud-probe-message.log", "GPU1 (0000:18:00.0)", kFellOffProbe},
                      FellOffForm{"nvsentinel-probe-message.log", "GPU4 (0000:b3:00.0)", kFellOffProbe},
                      FellOffForm{"nvsentinel-probe-message-no-pci-id.log", "GPU4 (0000:b3:00.0)", kFellOffProbe},
                      FellOffForm{"kmsg-probe-message.log", "GPU4 (0000:b3:00.0)", kFellOffProbe},
                      FellOffForm{"rsyslog-probe-message.log", "GPU4 (0000:b3:00.0)", kFellOffProbe},
                      FellOffForm{"probe-message-no-domain.log", "GPU0 (0000:01:00.0)", kFellOffProbe}),
    [](const ::testing::TestParamInfo<FellOffForm>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

// gpud's README sequence on a card the driver no longer lists: the XID 79 line, the driver's own
// line and the bus scan are one finding, the serial the log gave in its action.
TEST(FellOffBus, TheLogAndTheBusScanOfOneCardAreOneFinding) {
  const NodeVerdict v = JudgeNode(FixtureNode(LogFixture("gpud-xid79-readme.log"), "0000:91:00.0"), {});
  ASSERT_EQ(v.findings.size(), 1u) << VerdictLine(v, Lang::En);
  const Finding& f = v.findings[0];
  EXPECT_EQ(f.code, "LC110");
  EXPECT_EQ(FindingText(f, Lang::En, v.gpus),
            "GPU 0000:91:00.0 fell off the bus (XID 79; driver line: GPU has fallen off the bus; on the PCI bus but not in the driver): reboot");
  EXPECT_NE(f.action.en.find("serial 1653723052734"), std::string::npos) << f.action.en;
  EXPECT_EQ(f.pci_bus_id, "0000:91:00.0");  // a node-wide finding still carries the card for --json and the metrics
  ASSERT_EQ(v.xids.size(), 0u);  // the card is in no card's facts: its XID is the finding's evidence only
  // The same card lost with nothing in the log is the bus scan's own finding.
  EXPECT_EQ(FellOffLine(FixtureNode({}, "0000:91:00.0")),
            "FAIL: LC106 GPU 0000:91:00.0 on the PCI bus but not in the driver: fell off the bus or failed to initialise; see the kernel log");
  // A log that says it of a card neither in the driver nor on the bus scan (no scan here) still names it.
  json unscanned = FixtureNode(LogFixture("gpud-gpu-line.log"), "0000:29:00.0");
  unscanned.erase("pci_bus");
  EXPECT_EQ(FellOffLine(unscanned), "FAIL: LC110 GPU 0000:29:00.0 fell off the bus (driver line: GPU has fallen off the bus; not in the driver): reboot");
}

TEST(FellOffBus, EveryFormIsXid79ToTheSitesLists) {
  NodeExpectations e;
  e.xid_ignore = {79};
  EXPECT_EQ(FellOffLine(FixtureNode(LogFixture("nvsentinel-probe-message.log")), e), "OK");
  // On a card the driver lost, the bus scan still says so.
  EXPECT_EQ(FellOffLine(FixtureNode(LogFixture("gpud-xid79-readme.log"), "0000:91:00.0"), e).rfind("FAIL: LC106 GPU 0000:91:00.0", 0), 0u);
}

TEST(FellOffBus, Xid79DuringTheCheckAndInTheLogAreOneFinding) {
  json p = FixtureNode({"[ 100.0] NVRM: Xid (PCI:0000:29:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."});
  p["health"]["gpus"][2]["facts"]["xid_during_run"] = json::array({79});
  EXPECT_EQ(FellOffLine(p), "FAIL: LC110 GPU2 (0000:29:00.0) fell off the bus (XID 79; XID 79 during the check): reboot");
}

TEST(FellOffBus, ACardTheDriverCouldNotInitialise) {
  const std::vector<std::string> log = LogFixture("rminitadapter.log");
  EXPECT_EQ(FellOffLine(FixtureNode(log, "0000:0b:00.0")),
            "FAIL: LC306 GPU 0000:0b:00.0 failed to initialise (RmInitAdapter failed! (0x62:0x65:2522); on the PCI bus but not in the "
            "driver)");
  EXPECT_EQ(JudgeNode(FixtureNode(log, "0000:0b:00.0"), {}).findings.at(0).pci_bus_id, "0000:0b:00.0");
  // In the driver now: a later open initialised it; the lines stay in --json only.
  EXPECT_EQ(FellOffLine(FixtureNode(log)), "OK");
}

TEST(DriverMessages, NvlinkSetupThatFailedIsAReboot) {
  const NodeVerdict v = JudgeNode(FixtureNode(LogFixture("gpud-nvlink-rx-detect.log")), {});
  EXPECT_EQ(VerdictLine(v, Lang::En),
            "FAIL: LC307 the driver could not set up NVLink between the GPUs (kernel log: NVRM: knvlinkDiscoverPostRxDetLinks_GH100: "
            "Getting peer0's postRxDetLinkMask failed!): reboot");
  EXPECT_EQ(v.findings[0].clears, reference::Clears::Reboot);
}

// The "done when": an NVLink5 line whose status is an event to ignore leaves the node OK; a
// fault-status line fails it; both from gpud's production lines on the card at 0000:18:00.
TEST(Nvlink5, AnIgnorableStatusIsOkAFaultFails) {
  const std::string ber =
      "NVRM: Xid (PCI:0000:18:00): 149, NETIR_BER_EVENT Nonfatal XC0 i0 Link 03 (0x00086226 0x00000001 0x00000000 0x00000000 0x00000000 "
      "0x00000000)";
  const std::string netir =
      "NVRM: Xid (PCI:0000:18:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)";
  const NodeVerdict ok = JudgeNode(FixtureNode({ber}), {});
  EXPECT_EQ(VerdictLine(ok, Lang::En), "OK");
  ASSERT_EQ(ok.xids.size(), 1u);
  EXPECT_EQ(ok.xids[0]["class"], "application");
  EXPECT_EQ(ok.xids[0]["decode"]["action"], "IGNORE");
  EXPECT_EQ(FellOffLine(FixtureNode({ber, netir})), "FAIL: LC301 GPU1 (0000:18:00.0) XID 149 (NVLINK: NETIR Error): reset the GPU");
  // The same BER line written by a driver from R575 on is not in V1's form: not decoded, strict.
  EXPECT_EQ(FellOffLine(FixtureNode({"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 2025", ber})),
            "FAIL: LC301 GPU1 (0000:18:00.0) XID 149 (NVLINK: NETIR Error) (not decoded): reset the GPU");
}

TEST(Xid154, TheDriversFieldOutranksTheLogsAnnouncement) {
  const std::vector<std::string> log = {
      "[1.0] NVRM: Xid (PCI:0000:29:00): 154, GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)",
      "[2.0] NVRM: Xid (PCI:0000:29:00): 154, GPU recovery action changed from 0x4 (Drain and Reset) to 0x0 (None)"};
  // The card's last announcement is in force: None.
  EXPECT_EQ(FellOffLine(FixtureNode(log)), "OK");
  // The first alone asks for a reset; with field 230 read as "none" the field is the verdict.
  json p = FixtureNode({log[0]});
  EXPECT_EQ(FellOffLine(p), "FAIL: LC301 GPU2 (0000:29:00.0) XID 154 (GPU Recovery Action Changed): reset the GPU");
  p["health"]["gpus"][2]["facts"]["recovery_action"] = "none";
  const NodeVerdict v = JudgeNode(p, {});
  EXPECT_EQ(VerdictLine(v, Lang::En), "OK");
  EXPECT_EQ(v.xids[0]["superseded_by"], "recovery_action");
}

TEST(Xid154, DrainP2pAsksWhatNvidiaSaysNotAReset) {
  const NodeVerdict log = JudgeNode(FixtureNode({"NVRM: Xid (PCI:0000:29:00): 154, GPU recovery action changed from 0x0 (None) to 0x3 (Drain P2P)"}), {});
  EXPECT_EQ(VerdictLine(log, Lang::En), "FAIL: LC308 GPU2 (0000:29:00.0) XID 154: the driver asks to drain peer-to-peer traffic");
  json field = FixtureNode({});
  field["health"]["gpus"][2]["facts"]["recovery_action"] = "drain_p2p";
  const NodeVerdict v = JudgeNode(field, {});
  EXPECT_EQ(VerdictLine(v, Lang::En), "FAIL: LC308 GPU2 (0000:29:00.0) the driver asks to drain peer-to-peer traffic");
  const Finding& f = v.findings[0];
  EXPECT_EQ(f.severity, reference::Severity::Reset);
  EXPECT_EQ(f.clears, reference::Clears::Run);
  EXPECT_NE(f.action.en.find("turn UVM persistence mode off"), std::string::npos) << f.action.en;
  EXPECT_NE(f.action.en.find("-i 00000000:29:00.0"), std::string::npos) << f.action.en;
  EXPECT_EQ(f.action.en.find("nvidia-smi -r"), std::string::npos) << f.action.en;  // not a reset
  field["health"]["gpus"][2]["facts"]["recovery_action"] = "recover_imex_domain";
  EXPECT_EQ(FellOffLine(field), "FAIL: LC309 GPU2 (0000:29:00.0) the driver asks for the IMEX domain to be recovered");
}

}  // namespace
}  // namespace labcheck::node_check

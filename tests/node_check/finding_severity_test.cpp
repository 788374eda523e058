// Issue 44: every finding carries its code, severity, clearing rule and action from
// data/finding_codes.json, naming the card by bus id, UUID and serial; only severities above
// monitor that --report-only does not hold back fail the node. On hand-written payloads.
#include <gtest/gtest.h>

#include "node_check/outputs/node_report.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;
using reference::Severity;

json TwoH100s(int gpus = 2) {
  json p = {{"inventory", {{"driver_version", "580.95.05"}, {"gpus", json::array()}}},
            {"health", {{"outcome", "ok"}, {"gpus", json::array()}, {"xid_kernel_log", json::array()}}}};
  for (int i = 0; i < gpus; ++i) {
    const std::string bus = "0000:3" + std::to_string(i) + ":00.0";
    p["inventory"]["gpus"].push_back({{"index", i}, {"name", "NVIDIA H100 80GB HBM3"}, {"pci_bus_id", bus},
                                      {"memory_total_gib", 79.6}, {"uuid", "GPU-" + std::to_string(i)},
                                      {"serial", "165492200" + std::to_string(i)}, {"nvlink", {{"active", 18}, {"down", 0}}}});
    p["health"]["gpus"].push_back({{"index", i}, {"pci_bus_id", bus},
                                   {"facts", {{"power_limit_w", 700.0}, {"power_default_limit_w", 700.0}, {"persistence_mode", true}}}});
  }
  return p;
}

// A copy: the verdict is often a temporary.
Finding OnlyFinding(const NodeVerdict& v) {
  EXPECT_EQ(v.findings.size(), 1u) << VerdictLine(v, Lang::En);
  return v.findings.at(0);
}

TEST(FindingSeverity, APendingRowRemapIsAResetNamingTheCard) {
  json p = TwoH100s();
  p["health"]["gpus"][1]["facts"]["remapped_rows"] = {{"pending", true}, {"failed", false}};
  const NodeVerdict v = JudgeNode(p, {});
  const Finding f = OnlyFinding(v);
  EXPECT_EQ(f.code, "LC204");
  EXPECT_EQ(f.severity, Severity::Reset);
  EXPECT_EQ(f.clears, reference::Clears::Reset);
  EXPECT_EQ(f.action.en, "reset the idle card: `sudo nvidia-smi -r -i 00000000:31:00.0` (or reboot); the remap takes effect at the reset");
  EXPECT_EQ(VerdictLine(v, Lang::En), "FAIL: LC204 GPU1 (0000:31:00.0) row remap pending a reset");
  // The RMA ticket's facts go with the finding.
  const json report = NodeReportJson(v, p, {}, "gpu07");
  const json& j = report["findings"][0];
  EXPECT_EQ(j["code"], "LC204");
  EXPECT_EQ(j["severity"], "reset");
  EXPECT_EQ(j["clears"], "reset");
  EXPECT_EQ(j["fails"], true);
  EXPECT_EQ(j["uuid"], "GPU-1");
  EXPECT_EQ(j["serial"], "1654922001");
  EXPECT_EQ(j["pci_bus_id"], "0000:31:00.0");
}

// Cause before effect (issue 56): a card held at a power limit below its default is slow because
// of it. Its slow matmul (LC601) takes the limit's severity and points at LC502 instead of "open a
// ticket"; the same slowness on a card without a cap stays a card to isolate.
TEST(FindingSeverity, APowerLimitExplainsTheSlowMatmulOnItsCard) {
  json p = TwoH100s();
  p["matmul"] = json::array();
  for (int i = 0; i < 2; ++i) p["matmul"].push_back({{"index", i}, {"tflops", 300.0}, {"precision", "bf16"}});
  p["health"]["gpus"][0]["facts"]["power_limit_w"] = 350.0;
  const NodeVerdict v = JudgeNode(p, {});
  const Finding* capped = nullptr;
  const Finding* uncapped = nullptr;
  for (const Finding& f : v.findings)
    if (f.code == "LC601") (f.gpu == 0 ? capped : uncapped) = &f;
  ASSERT_NE(capped, nullptr) << VerdictLine(v, Lang::En);
  ASSERT_NE(uncapped, nullptr) << VerdictLine(v, Lang::En);
  EXPECT_EQ(capped->severity, Severity::Config);
  EXPECT_NE(capped->action.en.find("the effect of LC502 on this card"), std::string::npos) << capped->action.en;
  EXPECT_EQ(capped->action.en.find("ticket"), std::string::npos) << capped->action.en;
  EXPECT_EQ(uncapped->severity, Severity::Isolate);
  EXPECT_NE(uncapped->action.en.find("open a ticket"), std::string::npos) << uncapped->action.en;
}

TEST(FindingSeverity, APowerCapIsConfigAndItsCommandRestoresTheDefault) {
  json p = TwoH100s();
  p["health"]["gpus"][0]["facts"]["power_limit_w"] = 450.0;
  const Finding f = OnlyFinding(JudgeNode(p, {}));
  EXPECT_EQ(f.code, "LC502");
  EXPECT_EQ(f.severity, Severity::Config);
  EXPECT_NE(f.action.en.find("`sudo nvidia-smi -i 00000000:30:00.0 -pl 700`"), std::string::npos) << f.action.en;
  // Below the site's own cap: the command restores the cap, not the default.
  NodeExpectations capped;
  capped.power_limit_w = 500;
  const NodeVerdict below = JudgeNode(p, capped);
  EXPECT_NE(OnlyFinding(below).action.en.find("-pl 500`"), std::string::npos) << OnlyFinding(below).action.en;
}

TEST(FindingSeverity, ALostNvLinkIsIsolateWithTheSerialForTheTicket) {
  json p = TwoH100s();
  p["inventory"]["gpus"][1]["nvlink"] = {{"active", 16}, {"down", 2}};
  const Finding f = OnlyFinding(JudgeNode(p, {}));
  EXPECT_EQ(f.code, "LC403");
  EXPECT_EQ(f.severity, Severity::Isolate);
  EXPECT_NE(f.action.en.find("serial 1654922001"), std::string::npos) << f.action.en;
  EXPECT_NE(f.action.ru.find("серийный номер 1654922001"), std::string::npos) << f.action.ru;
}

TEST(FindingSeverity, XidsSplitByClassEachWithItsSeverity) {
  json p = TwoH100s();
  p["health"]["xid_kernel_log"] = json::array({{{"xid", 48}, {"pci", "0000:30:00"}, {"line", "NVRM: Xid (PCI:0000:30:00): 48, pid=1"}},
                                               {{"xid", 79}, {"pci", "0000:30:00"}, {"line", "NVRM: Xid (PCI:0000:30:00): 79, pid=1"}}});
  const NodeVerdict v = JudgeNode(p, {});
  ASSERT_EQ(v.findings.size(), 2u) << VerdictLine(v, Lang::En);
  std::map<std::string, Severity> by_code;
  for (const Finding& f : v.findings) by_code[f.code] = f.severity;
  EXPECT_EQ(by_code.at("LC301"), Severity::Reset);   // XID 48: RESET_GPU
  EXPECT_EQ(by_code.at("LC110"), Severity::Reboot);  // XID 79: RESTART_BM, the card fell off the bus
}

TEST(FindingSeverity, MonitorFindingsNeverFailTheNode) {
  json p = TwoH100s();
  p["health"]["gpus"][0]["facts"]["ecc_corrected_volatile"] = 1e9;
  const NodeVerdict v = JudgeNode(p, {});
  EXPECT_EQ(OnlyFinding(v).severity, Severity::Monitor);
  EXPECT_EQ(v.state, NodeState::Healthy);
  EXPECT_EQ(VerdictLine(v, Lang::En), "OK");
}

TEST(FindingSeverity, ReportOnlyHoldsBackItsCodesAndOnlyThose) {
  json p = TwoH100s();
  p["inventory"]["gpus"][1]["nvlink"] = {{"active", 16}, {"down", 2}};
  p["health"]["gpus"][0]["facts"]["power_limit_w"] = 450.0;
  NodeExpectations e;
  e.report_only = {"LC403"};
  const NodeVerdict v = JudgeNode(p, e);
  EXPECT_EQ(v.state, NodeState::Unhealthy);
  EXPECT_EQ(VerdictLine(v, Lang::En), "FAIL: LC502 GPU0 (0000:30:00.0) power limit 450 W (default 700 W)");
  EXPECT_EQ(FailingFindingsText(v, Lang::En), "LC502 GPU0 (0000:30:00.0) power limit 450 W (default 700 W)");
  e.report_only = {"LC403", "LC502"};
  const NodeVerdict held = JudgeNode(p, e);
  EXPECT_EQ(held.state, NodeState::Healthy);
  EXPECT_EQ(VerdictLine(held, Lang::En), "OK");
  ASSERT_EQ(held.findings.size(), 2u);
  for (const Finding& f : held.findings) {
    EXPECT_TRUE(f.held) << f.code;
    EXPECT_FALSE(Fails(f)) << f.code;
  }
  e.report_only = {"all"};
  EXPECT_EQ(JudgeNode(p, e).state, NodeState::Healthy);
  const json report = NodeReportJson(JudgeNode(p, e), p, e, "gpu07");
  EXPECT_EQ(report["findings"].size(), 2u);
  EXPECT_EQ(report["findings"][0]["held"], true);
  EXPECT_EQ(report["expectations"]["report_only"], json::array({"all"}));
}

}  // namespace
}  // namespace labcheck::node_check

// Correctable ECC errors over the threshold (correctable_error_warnings.cpp): a finding of severity
// monitor (LC208) naming the card and the count; the node stays healthy. Uncorrected ones still fail.
#include <gtest/gtest.h>

#include "node_check/findings/judge_node.h"
#include "node_check/outputs/node_report.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;

json WithCorrected(double gpu1_corrected, double gpu1_uncorrected = 0) {
  json payload = {{"health", {{"gpus", json::array()}}}, {"inventory", {{"gpus", json::array()}}}};
  for (int i = 0; i < 2; ++i) payload["inventory"]["gpus"].push_back({{"index", i}, {"name", "NVIDIA H100 80GB HBM3"}});
  for (int i = 0; i < 2; ++i)
    payload["health"]["gpus"].push_back(
        {{"index", i}, {"facts", {{"ecc_mode", true}, {"ecc_corrected_volatile", i == 1 ? gpu1_corrected : 12},
                                  {"ecc_uncorrected_volatile", i == 1 ? gpu1_uncorrected : 0}}}});
  return payload;
}

bool HasItem(const std::vector<Finding>& list, const std::string& item) {
  for (const Finding& f : list)
    if (f.item == item) return true;
  return false;
}

std::vector<Finding> Monitored(const NodeVerdict& v) {
  std::vector<Finding> out;
  for (const Finding& f : v.findings)
    if (f.severity == reference::Severity::Monitor) out.push_back(f);
  return out;
}

TEST(CorrectableErrorWarnings, OverTheThresholdIsAWarningNamingTheCard) {
  NodeExpectations e;
  e.ecc_corrected_warn = 1000;
  const NodeVerdict v = JudgeNode(WithCorrected(123456), e);
  ASSERT_EQ(Monitored(v).size(), 1u);
  EXPECT_EQ(FindingText(Monitored(v)[0], Lang::En), "GPU1 123456 corrected ECC errors since the driver loaded (threshold 1000)");
  EXPECT_EQ(Monitored(v)[0].code, "LC208");
  EXPECT_FALSE(Fails(Monitored(v)[0])) << "a monitor finding never fails the node";
  EXPECT_EQ(v.state, NodeState::Healthy);
  EXPECT_EQ(VerdictLine(v, Lang::En), "OK");
  const json report = NodeReportJson(v, WithCorrected(123456), e, "node7");
  EXPECT_EQ(report["findings"][0]["gpu"], 1);
  EXPECT_EQ(report["findings"][0]["severity"], "monitor");
  EXPECT_EQ(report["findings"][0]["fails"], false);
  EXPECT_EQ(report["expectations"]["ecc_corrected_warn"], 1000);
}

TEST(CorrectableErrorWarnings, AtTheDefaultOrBelowNothingIsSaid) {
  EXPECT_TRUE(JudgeNode(WithCorrected(123456), {}).findings.empty());  // gcm's 50,000,000
  NodeExpectations e;
  e.ecc_corrected_warn = 123456;
  EXPECT_TRUE(JudgeNode(WithCorrected(123456), e).findings.empty());
}

TEST(CorrectableErrorWarnings, SramCountsByAzuresThreshold) {
  json p = WithCorrected(0);
  p["health"]["gpus"][1]["facts"]["sram_corrected_volatile"] = 10001;
  NodeVerdict v = JudgeNode(p, {});
  ASSERT_EQ(Monitored(v).size(), 1u);
  EXPECT_EQ(Monitored(v)[0].code, "LC209");
  EXPECT_EQ(v.state, NodeState::Healthy);
  p["health"]["gpus"][1]["facts"]["sram_corrected_volatile"] = 10000;  // Azure fails over, not at
  EXPECT_TRUE(JudgeNode(p, {}).findings.empty());
  p["health"]["gpus"][1]["facts"]["sram_uncorrected_volatile"] = 1;
  v = JudgeNode(p, {});
  EXPECT_TRUE(HasItem(v.findings, "sram_uncorrected"));
  EXPECT_EQ(v.state, NodeState::Unhealthy);
  p["health"]["gpus"][1]["facts"]["ecc_mode"] = false;  // no ECC, no count to trust
  EXPECT_FALSE(HasItem(JudgeNode(p, {}).findings, "sram_uncorrected"));
}

TEST(CorrectableErrorWarnings, UncorrectedOnesStillFail) {
  const NodeVerdict v = JudgeNode(WithCorrected(0, 2), {});
  EXPECT_TRUE(HasItem(v.findings, "ecc_uncorrected"));
  EXPECT_EQ(v.state, NodeState::Unhealthy);
}

}  // namespace
}  // namespace labcheck::node_check

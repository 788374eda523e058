// node-check --memtest SECONDS: the memory test's findings (LC211–LC215) from hand-written logs, and
// the real binary on the simulated machines with memory faults (tests/sim/machines/memtest-*.json).
// The logs' addresses and values are made up for the tests, not taken from a real card.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "node_check/findings/findings.h"
#include "node_check_run.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;
using testing::NodeCheck;

constexpr uint64_t kGiB = uint64_t{1} << 30;

// One card's log lines: 31 GiB tested in one chunk, a run of `pattern` with `errors`, its end.
std::string CardLog(int gpu, const std::string& pattern, const json& errors, const json& end_extra = json::object()) {
  const json name = {{"gpu", gpu}, {"name", "NVIDIA H100 80GB HBM3"}, {"pci_bus_id", fmt::format("0000:{:02x}:00.0", 0x18 + gpu)}};
  const json memory = {{"gpu", gpu},
                       {"memory",
                        {{"total_bytes", 80 * kGiB}, {"free_bytes", 79 * kGiB}, {"target_bytes", 78 * kGiB}, {"tested_bytes", 78 * kGiB},
                         {"chunks", {78 * kGiB}}, {"chunk_addresses", {"0x7f0000000000"}}, {"allocation_short", false}}}};
  const json run = {{"gpu", gpu},
                    {"run", {{"pattern", pattern}, {"pass", 0}, {"bytes_moved", 4 * 78 * kGiB}, {"seconds", 0.1},
                             {"complete", true}, {"gbps", 3000.0}, {"errors", errors}}}};
  json end = {{"passes", 1}, {"device_seconds", 9.0}, {"context_lost", false}, {"ecc_before", json::object()},
              {"ecc_after", json::object()}};
  end.update(end_extra);
  return name.dump() + "\n" + memory.dump() + "\n" + run.dump() + "\n" + json{{"gpu", gpu}, {"end", end}}.dump() + "\n";
}

TEST(MemtestFindings, WrongWordsAndALostContextFailTheCardCorrectedOnesAreOnlyReported) {
  const json wrong = {{"count", 7},
                      {"bits", {{"13", 7}}},
                      {"records", {{{"address", "0x7f0000400000"}, {"expected", "0x0"}, {"read", "0x2000"}, {"reread", "0x2000"}}}}};
  const std::string log = CardLog(0, "ones_zeros", wrong) + CardLog(1, "ones_zeros", {{"count", 0}}) +
                          CardLog(2, "own_address", {{"count", 0}},
                                  {{"context_lost", true}, {"error", "cuEventRecord failed: CUDA_ERROR_ECC_UNCORRECTABLE (214)"}}) +
                          CardLog(3, "own_address", {{"count", 0}},
                                  {{"ecc_before", {{"ecc_mode", true}, {"ecc_corrected_volatile", 4}}},
                                   {"ecc_after", {{"ecc_mode", true}, {"ecc_corrected_volatile", 9}}}}) +
                          "{\"done\": true}\n";
  std::vector<Finding> findings;
  json gpus = json::array({{{"index", 0}}, {{"index", 1}}, {{"index", 2}}, {{"index", 3}}});
  AddMemtestFindings({{"seconds", 10}, {"log", log}}, findings, gpus);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].gpu, 0);
  EXPECT_EQ(findings[0].item, "memtest_errors");
  EXPECT_NE(findings[0].text.en.find("7 word(s) of memory read back differently than written (moving inversions, ones and zeros); bits 13 (7×)"),
            std::string::npos)
      << findings[0].text.en;
  EXPECT_EQ(findings[1].gpu, 2);
  EXPECT_EQ(findings[1].item, "memtest_ecc_lost");
  EXPECT_EQ(findings[2].gpu, 3);
  EXPECT_EQ(findings[2].item, "memtest_ecc_corrected");
  EXPECT_NE(findings[2].text.en.find("ECC corrected 5 single-bit errors"), std::string::npos);
  EXPECT_EQ(gpus[0]["memtest"]["errors"], 7);
  EXPECT_NEAR(gpus[1]["memtest"]["tested_gib"].get<double>(), 78, 1e-9);
  EXPECT_NEAR(gpus[1]["memtest"]["slowest_pattern_gbps"].get<double>(), 4.0 * 78 * kGiB / 0.1 / 1e9, 1e-6);  // bytes / seconds
  // No --memtest, nothing; a child that wrote nothing, one node-wide finding that says so.
  findings.clear();
  AddMemtestFindings(nullptr, findings, gpus);
  EXPECT_TRUE(findings.empty());
  AddMemtestFindings({{"seconds", 10}, {"log", ""}, {"error", "cannot write /tmp/x"}}, findings, gpus);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].item, "memtest_stopped");
  EXPECT_NE(findings[0].text.en.find("cannot write /tmp/x"), std::string::npos);
}

class MemtestGateSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SimPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
  }
};

TEST_F(MemtestGateSim, AHealthyNodeStaysOkAndReportsWhatWasTested) {
  testing::Run run = NodeCheck("course-4x4080.json", {"--json", "--memtest", "5"});
  ASSERT_EQ(run.outcome.exit_code, 0) << run.outcome.out << run.outcome.err;
  ASSERT_TRUE(run.json.is_object());
  for (const json& g : run.json["gpus"]) {
    ASSERT_TRUE(g.contains("memtest")) << g.dump();
    EXPECT_GT(g["memtest"]["tested_gib"].get<double>(), 31);
    EXPECT_EQ(g["memtest"]["errors"], 0);
  }
  EXPECT_TRUE(run.json["timings_s"]["memtest_s"].is_number());
  // Off by default: no memory test, no figures.
  testing::Run plain = NodeCheck("course-4x4080.json", {"--json"});
  EXPECT_FALSE(plain.json["gpus"][0].contains("memtest"));
}

TEST_F(MemtestGateSim, BitsStuckAtAStrideDrainTheNodeNamingTheCardAndTheBits) {
  testing::Run run = NodeCheck("memtest-stuck-bits.json", {"--memtest", "5"});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  EXPECT_NE(run.line.find("FAIL: LC211 GPU1 (0000:41:00.0) "), std::string::npos) << run.line;
  EXPECT_NE(run.line.find("stride 64 MiB"), std::string::npos) << run.line;
  EXPECT_EQ(run.line.find("GPU0"), std::string::npos) << run.line;
}

TEST_F(MemtestGateSim, AFakeCapacityIsLC212AndAnUncorrectableEccErrorLC213) {
  testing::Run fake = NodeCheck("memtest-fake-capacity.json", {"--memtest", "5"});
  EXPECT_EQ(fake.outcome.exit_code, 1) << fake.outcome.err;
  EXPECT_NE(fake.line.find("LC212 GPU0 (0000:01:00.0) the card's memory is not what it reports: addresses 16.00 GiB apart"),
            std::string::npos)
      << fake.line;
  testing::Run lost = NodeCheck("memtest-ecc-lost.json", {"--memtest", "5"});
  EXPECT_EQ(lost.outcome.exit_code, 1) << lost.outcome.err;
  EXPECT_NE(lost.line.find("LC213 GPU0 (0000:18:00.0) an uncorrectable ECC error stopped the test"), std::string::npos) << lost.line;
}

TEST_F(MemtestGateSim, CorrectedEccErrorsAreAWarningAndTheNodeStays) {
  testing::Run run = NodeCheck("memtest-ecc-corrected.json", {"--memtest", "5"});
  EXPECT_EQ(run.outcome.exit_code, 0) << run.line << run.outcome.err;
  EXPECT_EQ(run.line, "OK");
  EXPECT_NE(run.outcome.err.find("LC214"), std::string::npos) << run.outcome.err;
}

TEST_F(MemtestGateSim, TooLongATestForSlurmdsHealthCheckIsBadUsage) {
  testing::Run run = NodeCheck("course-4x4080.json", {"--memtest", "20"}, {{"SLURMD_NODENAME", "gpu01"}});
  EXPECT_EQ(run.outcome.exit_code, 2) << run.outcome.err;
  EXPECT_NE(run.outcome.err.find("does not fit slurmd's 60 s health check"), std::string::npos) << run.outcome.err;
  EXPECT_EQ(NodeCheck("course-4x4080.json", {"--memtest", "-1"}).outcome.exit_code, 2);
}

}  // namespace
}  // namespace labcheck::node_check

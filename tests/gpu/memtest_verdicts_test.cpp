// The memory test's verdicts from its log (src/gpu/memtest/memtest_verdicts.h), driven with logs
// written here by hand in the child's format (memtest_log.h): no GPU and no child needed. The
// addresses and values are made up for the tests, not taken from a real card.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gpu/memtest/memtest_errors.h"
#include "gpu/memtest/memtest_verdicts.h"

namespace labcheck::gpu::memtest {
namespace {

using nlohmann::json;

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kBase = 0x7f0000000000;

std::string Hex(uint64_t v) { return fmt::format("0x{:016x}", v); }

// One card of 32 GiB with 31.6 GiB tested in one chunk at kBase.
struct LogBuilder {
  std::vector<json> lines;
  LogBuilder& Card(int gpu, uint64_t tested = 31 * kGiB, uint64_t free_bytes = 32 * kGiB, bool short_allocation = false) {
    lines.push_back({{"gpu", gpu}, {"name", "NVIDIA GeForce RTX 4080"}, {"pci_bus_id", fmt::format("0000:{:02x}:00.0", gpu + 1)}});
    lines.push_back({{"gpu", gpu}, {"sm_copy", {{"gbps", 610.0}}}});
    json memory = {{"total_bytes", 32 * kGiB}, {"free_bytes", free_bytes}, {"target_bytes", free_bytes - (400 << 20)},
                   {"tested_bytes", tested}, {"chunks", {tested}}, {"chunk_addresses", {Hex(kBase)}},
                   {"allocation_short", short_allocation}};
    if (short_allocation) memory["first_failed_bytes"] = free_bytes - (400 << 20);
    lines.push_back({{"gpu", gpu}, {"memory", memory}});
    return *this;
  }
  LogBuilder& Run(int gpu, const std::string& pattern, json errors = {{"count", 0}}, json flips = nullptr) {
    json run = {{"pattern", pattern}, {"pass", 0}, {"bytes_moved", 4 * 31 * kGiB}, {"seconds", 0.22}, {"complete", true},
                {"errors", errors}, {"gbps", 600.0}};
    if (!flips.is_null()) run["flips"] = flips;
    lines.push_back({{"gpu", gpu}, {"run", run}});
    return *this;
  }
  LogBuilder& End(int gpu, json ecc_before = json::object(), json ecc_after = json::object(), bool lost = false,
                  const std::string& error = "") {
    json end = {{"passes", 1}, {"device_seconds", 17.0}, {"ecc_before", ecc_before}, {"ecc_after", ecc_after}, {"context_lost", lost}};
    if (!error.empty()) end["error"] = error;
    lines.push_back({{"gpu", gpu}, {"end", end}});
    return *this;
  }
  std::string Text(bool done = true) const {
    std::string text;
    for (const json& l : lines) text += l.dump() + "\n";
    return done ? text + "{\"done\": true}\n" : text;
  }
};

json Record(uint64_t address, uint64_t expected, uint64_t read) {
  return {{"address", Hex(address)}, {"expected", Hex(expected)}, {"read", Hex(read)}, {"reread", Hex(read)}};
}

CheckResult Judge(const LogBuilder& log, JudgeOptions options = {}) { return JudgeMemtest(ReadMemtestLog(log.Text()), options); }

TEST(MemtestVerdicts, AHealthyCardPassesWithWhatWasTestedAndHowFast) {
  LogBuilder log;
  log.Card(0).Run(0, "own_address").Run(0, "walking_bit_32").End(0);
  const CheckResult r = Judge(log);
  EXPECT_EQ(r.outcome, Outcome::Pass) << r.reason.en;
  EXPECT_NE(r.summary.en.find("no errors"), std::string::npos) << r.summary.en;
  EXPECT_NE(r.summary.en.find("SM copy 610"), std::string::npos) << r.summary.en;
  EXPECT_NE(r.summary.en.find("31.0 GiB"), std::string::npos) << r.summary.en;
  ASSERT_NE(r.Find("gpu0.memtest_slowest_gbps"), nullptr);
  EXPECT_DOUBLE_EQ(r.Find("gpu0.memtest_errors")->value, 0);
  EXPECT_EQ(r.data["cards"][0]["verdict"], "PASS");
}

TEST(MemtestVerdicts, StuckBitsAtAStrideFailNamingTheCardTheBitsAndTheStride) {
  json records = json::array();
  for (uint64_t i = 0; i < 4; ++i) records.push_back(Record(kBase + (i + 3) * (64 << 20), 0, uint64_t{1} << 13));
  LogBuilder log;
  log.Card(0).Run(0, "ones_zeros", {{"count", 120}, {"bits", {{"13", 120}}}, {"records", records}}).End(0);
  const CheckResult r = Judge(log);
  ASSERT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("GPU0 (0000:01:00.0)"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("120 word(s)"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("ones and zeros"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("bits 13 (120×, stride 64 MiB)"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("the first at 0.19 GiB"), std::string::npos) << r.reason.en;  // 3 × 64 MiB
  EXPECT_NE(r.hint.en.find("silently corrupts"), std::string::npos) << r.hint.en;           // no ECC on this card
  EXPECT_NE(r.hint.en.find("-lmc"), std::string::npos) << r.hint.en;
  EXPECT_NE(r.hint.en.find("00000000:01:00.0"), std::string::npos) << r.hint.en;  // nvidia-smi by bus id
  EXPECT_NE(r.hint.ru.find("молча портит"), std::string::npos);
}

TEST(MemtestVerdicts, OwnAddressWordsHoldingOtherAddressesAreMemoryThatIsNotWhatItReports) {
  json records = json::array();
  for (uint64_t i = 0; i < 3; ++i) {
    const uint64_t at = kBase + i * 4096;
    records.push_back(Record(at, at, at + 16 * kGiB));  // written through the address 16 GiB higher
  }
  LogBuilder log;
  log.Card(0).Run(0, "own_address", {{"count", 2000000000}, {"bits", {{"34", 65536}}}, {"records", records}}).Run(0, "ones_zeros").End(0);
  const CheckResult r = Judge(log);
  ASSERT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("not what it reports: addresses 16.00 GiB apart reach the same cells (from 16.00 GiB on)"),
            std::string::npos)
      << r.reason.en;
  EXPECT_NE(r.reason.en.find("holds about 16.00 GiB, not 32.00"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.hint.en.find("set_per_process_memory_fraction"), std::string::npos) << r.hint.en;
  EXPECT_EQ(r.data["cards"][0]["aliasing"]["distance"], 16 * kGiB);
  // The same own-address words beside a constant pattern that also failed on bit 34: a bad bit,
  // which makes an address read as the one 16 GiB away, not aliasing.
  LogBuilder stuck;
  const json ones = {{"count", 5}, {"bits", {{"34", 5}}}, {"records", {Record(kBase, ~uint64_t{0}, ~(uint64_t{1} << 34))}}};
  stuck.Card(0).Run(0, "own_address", {{"count", 5}, {"bits", {{"34", 5}}}, {"records", records}}).Run(0, "ones_zeros", ones).End(0);
  const CheckResult s = Judge(stuck);
  ASSERT_EQ(s.outcome, Outcome::Fail);
  EXPECT_EQ(s.reason.en.find("not what it reports"), std::string::npos) << s.reason.en;
  EXPECT_NE(s.reason.en.find("bits 34"), std::string::npos) << s.reason.en;
}

TEST(MemtestVerdicts, AllocationsFailingFarBelowTheFreeMemoryFailOnlyWhenNothingElseHoldsIt) {
  LogBuilder alone;
  alone.Card(0, 16 * kGiB, 32 * kGiB, true).Run(0, "own_address").End(0);
  const CheckResult r = Judge(alone);
  ASSERT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("refused allocations after 16.00 GiB of the 32.00 GiB free, with nothing else holding memory"),
            std::string::npos)
      << r.reason.en;
  LogBuilder held;  // another process holds half the card: what is left is tested, with a word
  held.Card(0, 6 * kGiB, 12 * kGiB, true).Run(0, "own_address").End(0);
  const CheckResult w = Judge(held);
  EXPECT_EQ(w.outcome, Outcome::Warn) << w.reason.en;
  EXPECT_NE(w.reason.en.find("other processes hold memory"), std::string::npos) << w.reason.en;
}

TEST(MemtestVerdicts, ALostContextIsAFailWithItsCauseAndTheUncorrectedCount) {
  LogBuilder log;
  log.Card(0).Run(0, "own_address")
      .End(0, {{"ecc_mode", true}, {"ecc_uncorrected_volatile", 0}}, {{"ecc_mode", true}, {"ecc_uncorrected_volatile", 1}}, true,
           "cuEventRecord failed: CUDA_ERROR_ECC_UNCORRECTABLE (214): uncorrectable ECC error encountered");
  const CheckResult r = Judge(log);
  ASSERT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("CUDA lost the context (error 214, CUDA_ERROR_ECC_UNCORRECTABLE); the uncorrected count (+1)"),
            std::string::npos)
      << r.reason.en;
  EXPECT_EQ(r.reason.en.find("the test stopped"), std::string::npos) << "one cause, said once";
  EXPECT_NE(r.hint.en.find("ROW_REMAPPER"), std::string::npos);
  EXPECT_NE(r.hint.en.find("nvidia-smi -r -i 00000000:01:00.0"), std::string::npos) << r.hint.en;
}

TEST(MemtestVerdicts, CorrectedSingleBitErrorsAreAWarnWithTheirCounters) {
  LogBuilder log;
  log.Card(0).Run(0, "own_address").End(0, {{"ecc_mode", true}, {"ecc_corrected_volatile", 5}}, {{"ecc_mode", true}, {"ecc_corrected_volatile", 17}});
  const CheckResult r = Judge(log);
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("ECC corrected 12 single-bit errors during the test: the data stayed right"), std::string::npos)
      << r.reason.en;
  EXPECT_EQ(r.data["cards"][0]["ecc_corrected_during_test"], 12);
}

TEST(MemtestVerdicts, TheSelfTestPassesOnlyWhenEveryPatternReportedExactlyItsFlips) {
  const uint64_t at = kBase + 4096;
  const json flips = {{{"address", Hex(at)}, {"bit", 10}}};
  LogBuilder exact;
  exact.Card(0).Run(0, "eight_bit", {{"count", 1}, {"bits", {{"10", 1}}}, {"records", {Record(at, 0, 1024)}}}, flips).End(0);
  JudgeOptions self_test;
  self_test.self_test = true;
  const CheckResult ok = Judge(exact, self_test);
  EXPECT_EQ(ok.outcome, Outcome::Pass) << ok.reason.en;
  EXPECT_NE(ok.summary.en.find("exactly the bits that were flipped"), std::string::npos);
  LogBuilder wrong_bit;
  wrong_bit.Card(0).Run(0, "eight_bit", {{"count", 1}, {"bits", {{"11", 1}}}, {"records", {Record(at, 0, 2048)}}}, flips).End(0);
  const CheckResult bad = Judge(wrong_bit, self_test);
  ASSERT_EQ(bad.outcome, Outcome::Fail);
  EXPECT_NE(bad.reason.en.find("self-test: the check of (moving inversions, 8-bit pattern) did not report exactly"),
            std::string::npos)
      << bad.reason.en;
  LogBuilder missed;
  missed.Card(0).Run(0, "eight_bit", {{"count", 0}}, flips).End(0);
  EXPECT_EQ(Judge(missed, self_test).outcome, Outcome::Fail);
}

TEST(MemtestVerdicts, ACtrlCKeepsWhatRanAndSaysItStoppedEarly) {
  LogBuilder log;
  log.Card(0).Run(0, "own_address");  // no end line, no done line: the child was killed
  const MemtestLog read = ReadMemtestLog(log.Text(false) + "{\"gpu\": 0, \"run\": {\"patt");  // and a torn line
  ASSERT_EQ(read.cards.size(), 1u);
  EXPECT_FALSE(read.complete);
  EXPECT_EQ(read.cards[0].patterns.size(), 1u);
  JudgeOptions options;
  options.interrupted = true;
  const CheckResult r = JudgeMemtest(read, options);
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("stopped (Ctrl-C)"), std::string::npos);
}

TEST(MemtestErrors, StrideIsTheCommonDivisorOfTheDistancesAndAliasingNeedsAnAddressInsideTheTestedMemory) {
  std::vector<WordError> records = {{kBase + 3 * 65536}, {kBase + 7 * 65536}, {kBase + 15 * 65536}};
  EXPECT_EQ(AddressStride(records), 4u * 65536);
  EXPECT_EQ(AddressStride({records[0]}), 0u);
  const std::vector<TestedRange> ranges = {{kBase, 8 * kGiB, 0}, {kBase + 16 * kGiB, 8 * kGiB, 8 * kGiB}};
  EXPECT_EQ(LogicalOffset(ranges, kBase + 16 * kGiB + 8), 8 * kGiB + 8);
  EXPECT_FALSE(LogicalOffset(ranges, kBase + 9 * kGiB).has_value());  // between the chunks
  // A stuck bit 34 in an own-address word looks like an address 16 GiB away: inside a chunk it is
  // taken as aliasing only when it lands on a tested word.
  const WordError alias{kBase + 8, kBase + 8, kBase + 16 * kGiB + 8};
  const std::optional<Aliasing> a = FindAliasing({alias}, ranges);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->distance, 8 * kGiB);  // logical: chunk two starts at 8 GiB of the tested memory
  const WordError outside{kBase + 8, kBase + 8, kBase + 9 * kGiB + 8};
  EXPECT_FALSE(FindAliasing({outside}, ranges).has_value());
}

}  // namespace
}  // namespace labcheck::gpu::memtest

// What the memory test's log means, card by card (a pure function of memtest_log.h's summaries,
// so tests drive every verdict with made-up logs):
//   - any word that read back differently is a FAIL naming the card by bus id, the patterns, the
//     count, the first addresses, the bits and their stride; without ECC such a card silently
//     corrupts training data;
//   - addresses that reach the same cells (own-address words holding another tested address while
//     the constant patterns read back clean: a bad bit shows in both, aliasing only in the first),
//     or allocations failing far below what the driver says is free with nothing else holding
//     memory, are a FAIL "the card's memory is not what it reports", saying where it starts (judged by what the memory does: the catalog entry
//     is matched by the size the card reports, so comparing with it proves nothing);
//   - an uncorrectable ECC error that loses the context (CUDA error 214) is a FAIL with that cause;
//   - single-bit errors ECC corrected during the test are a WARN with the counters;
//   - the self-test passes when every pattern reported exactly the bits it flipped.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/check_result.h"
#include "gpu/memtest/memtest_log.h"

namespace labcheck::gpu::memtest {

// Below this share of the free memory the note says how much was left out.
inline constexpr double kCoverageNote = 0.90;

struct CardFacts {
  int index = 0;
  std::string pci_bus_id, label;  // label: "GPU0 (0000:01:00.0)"
  uint64_t tested_bytes = 0, free_bytes = 0, total_bytes = 0;
  std::vector<TestedRange> ranges;
  uint64_t errors = 0;                       // words that differed (self-test: beyond the flips)
  std::vector<std::string> failing_patterns;  // keys
  ErrorTally all;                            // every pattern's tally together
  std::optional<Aliasing> aliasing;
  bool allocation_short = false, others_hold_memory = false;
  uint64_t first_failed_bytes = 0;
  bool context_lost = false;
  std::string error;                         // why it stopped early (not a lost context)
  std::optional<bool> ecc_enabled;
  std::optional<uint64_t> ecc_corrected_delta, ecc_uncorrected_delta;
  nlohmann::json remapped_rows_after;
  std::vector<std::string> self_test_wrong;  // patterns whose check did not report exactly the flips
  bool Failed() const;
  bool CapacityProblem() const { return aliasing.has_value() || (allocation_short && !others_hold_memory); }
};

CardFacts ReadCardFacts(const CardSummary& card, bool self_test);

struct JudgeOptions {
  std::string id = "gpu.memtest";
  bool self_test = false;
  bool interrupted = false;
  // The SM copy gpu.memory_bandwidth measured, by CUDA ordinal (the full check); else each card's
  // own figure from the log.
  std::map<int, double> sm_copy_gbps;
};

// The check's result: outcome, summary, reason and hint, the tables, measurements and data
// {"cards": [...], "self_test"} (the report's chart reads data.cards[].errors).
CheckResult JudgeMemtest(const MemtestLog& log, const JudgeOptions& options);

// What is wrong with one card, without the card's name (node-check's findings name it): the words
// that read back wrong, the capacity, the lost context.
Text DataErrorText(const CardFacts& facts);
Text CapacityText(const CardFacts& facts);
Text ContextLostText(const CardFacts& facts);
std::string StrideText(uint64_t bytes);  // "64 MiB", "64 KiB", "4096 B"

// The lines that say what is wrong with one card (empty: nothing), and the hint for them.
std::vector<Text> ProblemLines(const CardFacts& facts);
Text HintFor(const CardFacts& facts);

}  // namespace labcheck::gpu::memtest

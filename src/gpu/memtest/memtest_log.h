// The memory test's log as the child (jobs/memtest_job.cpp) writes it, one JSON object per line,
// read back into one summary per card: per pattern its runs, bytes, time, GB/s and errors, the
// memory tested, the ECC counters before and after, why a card stopped. Lines:
//   {"gpu": i, "name": …, "pci_bus_id": …}          once per card
//   {"gpu": i, "sm_copy": {"gbps"} | {"error"}}      lab_check's SM copy on that card
//   {"gpu": i, "memory": MemoryJson}                 what was allocated
//   {"gpu": i, "run": PatternRunJson}                after each pattern run
//   {"gpu": i, "end": {passes, device_seconds, ecc_before, ecc_after, context_lost, error?}}
//   {"gpu": i, "error": "…"}                         the card could not run
//   {"done": true}                                   last
// A killed child leaves the lines it wrote; a torn last line is skipped.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/memtest/memtest_errors.h"
#include "gpu/memtest/memtest_patterns.h"

namespace labcheck::gpu::memtest {

struct PatternSummary {
  std::string key;            // "own_address"
  int runs = 0, complete_runs = 0;
  uint64_t bytes_moved = 0;
  double seconds = 0;
  std::optional<double> gbps; // bytes_moved / seconds, for the patterns that move the memory
  ErrorTally errors;
  // Self-test: the bits flipped and whether the check reported exactly them, no more, no less.
  std::vector<std::pair<uint64_t, int>> flips;
  std::vector<std::pair<uint64_t, int>> missed, extra;
};

struct CardSummary {
  int index = 0;
  std::string name, pci_bus_id;
  std::optional<double> sm_copy_gbps;
  std::string sm_copy_error;
  nlohmann::json memory = nlohmann::json::object();  // MemoryJson; empty when nothing was allocated
  std::vector<TestedRange> ranges;
  std::vector<PatternSummary> patterns;  // in the order they first ran
  int passes = 0;
  double device_seconds = 0;
  bool ended = false;         // the card wrote its "end" line
  bool context_lost = false;
  std::string error;
  nlohmann::json ecc_before = nlohmann::json::object(), ecc_after = nlohmann::json::object();

  uint64_t ErrorCount() const;
  const PatternSummary* Pattern(const std::string& key) const;
};

struct MemtestLog {
  std::vector<CardSummary> cards;
  bool complete = false;  // {"done": true} was written
};

MemtestLog ReadMemtestLog(const std::string& text);

}  // namespace labcheck::gpu::memtest

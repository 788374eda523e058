// What one check found: its outcome, the figures it measured and the tables it wants shown.
// Plain values: checks fill them, renderers only read them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/spread.h"
#include "core/table.h"
#include "core/text.h"

namespace labcheck {

// Warn: it ran and works, but something deserves attention (a slow link, a small /dev/shm).
// NotRun: the run stopped (Ctrl-C) before this check started or while it ran.
enum class Outcome { Pass, Warn, Fail, Skip, NotRun };

const char* OutcomeName(Outcome outcome);  // "PASS", "WARN", "FAIL", "SKIP", "NOT RUN"
std::optional<Outcome> OutcomeFromName(const std::string& name);

// One figure. `key` is stable across versions and machines (docs/measurement-keys.md); the report
// comparison and the calculators find figures by it. `method` says how it was counted, e.g.
// "bytes read + bytes written per second, median of 20".
struct Measurement {
  std::string key;
  Text label;
  double value = 0;
  std::string unit;  // "GB/s" (10^9 bytes), "GiB", "TFLOPS" (10^12 FLOP/s), "ms", "tokens/s"...
  Text method;
  // A figure it should be compared with where one is derivable (theoretical peak), and its source.
  std::optional<double> reference;
  Text reference_label;
  // Repetitions, median, min–max, CV and the trust word; empty for figures measured once (a count).
  std::optional<Spread> spread;
};

struct CheckResult {
  std::string id;       // "cpu.memory_bandwidth"
  std::string section;  // "environment", "cpu", "gpu", "interconnect", "smoke"
  Text title;
  Outcome outcome = Outcome::NotRun;
  Text summary;  // one line, shown in the status table
  Text reason;   // why FAIL or SKIP, in words
  Text hint;     // what to do next
  std::string error;  // raw error text (stderr tail, exception message)
  double duration_s = 0;
  std::vector<Measurement> measurements;
  std::vector<Table> tables;
  nlohmann::json data = nlohmann::json::object();  // structured details for the JSON report

  const Measurement* Find(const std::string& key) const;
  Measurement& Add(Measurement m) { return measurements.emplace_back(std::move(m)); }
};

// Builders for the common endings of a check.
CheckResult Skipped(std::string id, Text reason, Text hint = {});
CheckResult Failed(std::string id, Text reason, Text hint = {}, std::string error = {});

}  // namespace labcheck

// The whole report: run metadata, every check's result, and the sections that analysers add after
// the checks (the expectations table, recommendations). Writers render it; nothing here renders.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check_result.h"
#include "core/table.h"
#include "core/text.h"

namespace labcheck {

inline constexpr int kReportSchemaVersion = 1;

// A part of the report that is not one check's result: computed from all of them.
struct ReportSection {
  std::string id;  // "expectations", "recommendations", "send_to_authors"
  Text title;
  std::vector<Text> paragraphs;  // Markdown-safe prose, rendered before the tables
  std::vector<Table> tables;
  nlohmann::json data = nlohmann::json::object();
  // The short form the terminal prints without --verbose (ReportToTerminalBrief): lines and tables
  // made for a screen. A section that leaves both empty stays in the files and under --verbose.
  // Not in the JSON or Markdown: they carry the full section.
  std::vector<Text> brief_lines;
  std::vector<Table> brief_tables;
};

struct RunMeta {
  std::string tool_version;
  std::string tool_commit;  // the build's commit (core/build_commit.h); empty in hand-made reports
  std::string started_at;   // ISO 8601 UTC
  std::string finished_at;  // ISO 8601 UTC
  double duration_s = 0;
  bool quick = false;
  bool skip_dist = false;
  std::string python;  // interpreter used by the probes, home as ~
  bool interrupted = false;  // Ctrl-C / SIGTERM stopped the run; the rest is NOT RUN
  std::vector<std::string> only;  // --only's patterns; empty: every check was chosen
};

struct Report {
  int schema_version = kReportSchemaVersion;
  Lang lang = Lang::Ru;
  RunMeta meta;
  std::vector<CheckResult> checks;
  std::vector<ReportSection> sections;

  const CheckResult* FindCheck(const std::string& id) const;
  // The first measurement with this key in any check (keys are unique by convention).
  const Measurement* FindMeasurement(const std::string& key) const;
  const ReportSection* FindSection(const std::string& id) const;
};

// The notice the Markdown and HTML reports open with when tests/sim answered instead of a driver
// (gpu.inventory says so), so that no report passes the simulator's figures off as a real card's:
// its bold first sentence and the rest. nullopt on a real machine.
struct Notice {
  Text heading;
  Text detail;
};
std::optional<Notice> SimulatedMachineNotice(const Report& report);

}  // namespace labcheck

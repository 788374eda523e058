// The subcommands that work on finished reports: `journal` and `compare`.
#pragma once
#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>

#include "core/text.h"

namespace labcheck::expect {

// Adds `journal [--report PATH] [--journal PATH]` and `compare A.json B.json [--json] [--html [PATH]]` as CLI11
// subcommands; their callbacks store the exit code (0 ok, 2 bad input: a missing or corrupt file is
// a clear message on stderr naming the path and what to do) in *exit_code.
void AddReportSubcommands(CLI::App& app, const Lang* lang, int* exit_code);

struct JournalOptions {
  std::string report = "journal/lab-report.json";
  std::string journal = "journal/lab.md";
};
struct CompareOptions {
  std::string a, b;
  bool json = false;
  std::string html;  // non-empty: also write the side-by-side HTML page there
};

// The commands themselves, with their streams, so tests run them without a process.
int RunJournal(const JournalOptions& options, Lang lang, std::ostream& out, std::ostream& err);
int RunCompare(const CompareOptions& options, Lang lang, std::ostream& out, std::ostream& err);

}  // namespace labcheck::expect

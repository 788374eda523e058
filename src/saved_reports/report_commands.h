// The subcommands that work on finished reports: `journal` and `compare`.
#pragma once
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/cli_forward.h"

#include "core/text.h"

namespace labcheck::saved_reports {

// Adds `journal [--report PATH] [--journal PATH]` and `compare A.json B.json [--json] [--html [PATH]]` as CLI11
// subcommands; their callbacks store the exit code (0 ok, 2 bad input: a missing or corrupt file is
// a clear message on stderr naming the path and what to do) in *exit_code.
// `compare` also takes inputs of another kind, one or many files: `extension` returns nullopt when
// the files are not of its kind, else its exit code. app.cpp hands in the fleet table of
// node-check JSONs (src/node_check/outputs/node_fleet.h), so that this folder does not depend on that one.
using CompareExtension = std::function<std::optional<int>(const std::vector<std::string>& files, bool json, Lang lang,
                                                          std::ostream& out, std::ostream& err)>;
void AddReportSubcommands(CLI::App& app, const Lang* lang, int* exit_code, CompareExtension extension = {});
// Parses `args` (what follows "lab_check", e.g. {"compare", "a.json", "b.json"}) on those
// subcommands and runs the one named; returns its exit code. For callers without CLI11, as
// calc::RunCalcCommandLine.
int RunReportCommandLine(const std::vector<std::string>& args, const Lang* lang);

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

}  // namespace labcheck::saved_reports

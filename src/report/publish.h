// The tail every report-writing command shares: anonymise, write the files atomically (a failure
// named in the report's language), remove the charts an earlier run left, print the terminal view
// (or the JSON) and the "Report:" line, and return the exit code. A command builds its Report and
// hands it here; a new report format is one writer and one line in PublishReport.
#pragma once
#include <string>

#include "report/report.h"

namespace labcheck {

// Exit codes (README, "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitReportNotWritten = 3;
inline constexpr int kExitInterrupted = 130;

// "journal/lab-report.md" → "journal/lab-report.json"; a path without ".md" gets ".json" added.
std::string JsonPathBeside(const std::string& markdown_path);

struct PublishOptions {
  std::string command = "lab_check";  // how messages on stderr begin: "lab_check burn"
  std::string markdown_path;          // the JSON goes beside it (JsonPathBeside)
  // The HTML report and the SVG charts beside the Markdown, and stale charts removed (the default
  // command); html_path empty: beside the Markdown.
  bool with_html = false;
  std::string html_path;
  bool json_stdout = false;  // stdout gets the JSON instead of the terminal view
  // The terminal's brief view (ReportToTerminalBrief) instead of everything: the default command
  // without --verbose.
  bool brief_terminal = false;
  bool json_file_only = false;  // no Markdown, HTML or charts: the JSON file alone
};

// Anonymises `report` in place, publishes it and returns the exit code: 130 interrupted, 3 a file
// not written (the JSON then still goes to stdout), 1 a check failed, else 0.
int PublishReport(Report& report, const PublishOptions& options);

}  // namespace labcheck

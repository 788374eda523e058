// The default command: run every registered check, write journal/lab-report.{md,json,html} and the
// charts as journal/lab-report-<chart>.svg, print.
#pragma once
#include <string>
#include <vector>

#include "core/text.h"
#include "report/publish.h"

namespace labcheck {

struct CheckCommandOptions {
  bool quick = false;
  bool skip_dist = false;
  bool json_only = false;
  bool verbose = false;  // every table in the terminal, not only the brief view
  std::string out = "journal/lab-report.md";
  std::string html;  // --html PATH; empty: beside the Markdown report (journal/lab-report.html)
  Lang lang = Lang::Ru;
  std::string python;  // as given with --python; empty: pick automatically
  double timeout_scale = 1;
  std::vector<std::string> only;  // --only: check ids or patterns (runner/check_selection.h)
};

// The exit codes and JsonPathBeside live in report/publish.h, which every command publishes through.
int RunCheckCommand(const CheckCommandOptions& options, const std::string& self_exe);

}  // namespace labcheck

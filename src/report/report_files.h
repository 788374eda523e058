// The files one run writes beside journal/lab-report.md (the JSON is written by the caller, also
// under --json-only): the Markdown report linking its charts, each chart as
// lab-report-<id>.svg, and the HTML report with the same charts inline.
#pragma once
#include <string>
#include <vector>

#include "report/report.h"

namespace labcheck {

struct ReportFile {
  std::string path;
  std::string content;
};

// "journal/lab-report.md" → "journal/lab-report.html"; a path without ".md" gets ".html" added.
std::string HtmlPathBeside(const std::string& markdown_path);
// "journal/lab-report.md", "busbw" → "journal/lab-report-busbw.svg"
std::string SvgPathBeside(const std::string& markdown_path, const std::string& chart_id);

// Markdown first, then the SVGs, then the HTML at html_path (empty: beside the Markdown).
std::vector<ReportFile> ReportFiles(const Report& report, const std::string& markdown_path, std::string html_path);

}  // namespace labcheck

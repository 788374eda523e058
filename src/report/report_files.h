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

// Charts an earlier run wrote beside `markdown_path` (its "<stem>-*.svg" carrying kChartFileMarker)
// that this run's `files` do not write again: a 1-GPU run after a 4-GPU one must not leave the
// old per-GPU charts in journal/ for someone to send with the report. Files without the marker
// are the user's and are never listed.
std::vector<std::string> StaleChartFiles(const std::string& markdown_path, const std::vector<ReportFile>& files);

}  // namespace labcheck

// journal/lab-report.md: readable and worth forwarding. Summary first, then the expectations
// table, then each section's checks with their figures, then recommendations.
#pragma once
#include <string>
#include <vector>

#include "report/report.h"

namespace labcheck {

// A chart written as an SVG file beside the report; the Markdown links it where its section ends,
// so GitHub and editors' previews show it.
struct ChartLink {
  std::string section;  // "expectations" or a check section id
  std::string title;
  std::string file;     // relative to the Markdown file: "lab-report-busbw.svg"
};

std::string ReportToMarkdown(const Report& report, const std::vector<ChartLink>& charts = {});
std::string TableToMarkdown(const Table& table, Lang lang);

}  // namespace labcheck

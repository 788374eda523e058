// journal/lab-report.html: the Markdown report's sections in the same order, with the charts
// inline as SVG next to the section they belong to, and the >2× rows of «Ожидалось в курсе → у
// вас» marked. One file, nothing fetched, no scripts (docs/html-report.md).
#pragma once
#include <string>
#include <vector>

#include "report/report.h"
#include "report/report_charts.h"

namespace labcheck {

std::string ReportToHtml(const Report& report, const std::vector<ReportChart>& charts);
// The body only (headings, tables, charts), for pages that hold more than one report (compare).
std::string ReportHtmlBody(const Report& report, const std::vector<ReportChart>& charts, const std::string& id_prefix);
// "Отчёт lab_check" / "lab_check report"
std::string ReportTitle(Lang lang);

}  // namespace labcheck

// journal/lab-report.md: readable and worth forwarding. Summary first, then the expectations
// table, then each section's checks with their figures, then recommendations.
#pragma once
#include <string>

#include "report/report.h"

namespace labcheck {

std::string ReportToMarkdown(const Report& report);
std::string TableToMarkdown(const Table& table, Lang lang);

}  // namespace labcheck

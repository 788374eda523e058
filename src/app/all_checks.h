// The one place that knows every module's checks and analysers, in report order.
#pragma once
#include "report/report.h"
#include "runner/check.h"

namespace labcheck {

Registry AllChecks();
// Sections computed from the finished report (expectations, recommendations).
void AddAnalysis(Report& report);

}  // namespace labcheck

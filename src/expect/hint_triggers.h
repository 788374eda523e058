// Which rows of the course's table «Если тест не прошёл» apply to this report, and why. Every hint
// in that table has a trigger here (tests prove each one): the analyser shows the matching advice
// next to the expectations table instead of leaving the user to search the course page.
#pragma once
#include <string>
#include <vector>

#include "core/text.h"
#include "expect/course_reference.h"
#include "expect/expectation_rows.h"
#include "expect/report_facts.h"
#include "reference/gpu_catalog.h"
#include "reference/hints.h"
#include "report/report.h"

namespace labcheck::expect {

struct TriggeredHint {
  hint::Id id;
  Text detail;         // what was seen on this machine: «GPU 2: CPU→GPU 12.4 ГБ/с»
  std::string source;  // the row id or check id that triggered it
};

std::vector<TriggeredHint> FindHints(const Report& report, const ReportFacts& facts,
                                     const CourseReference& course, const reference::GpuCatalog& catalog,
                                     const std::vector<ExpectationRow>& rows);

// Clock-event reasons that explain a slow matmul; idle and application-clock settings do not.
bool IsThrottling(const std::string& reason);

// Clock-event reasons as the GPU check stores them ("power_cap", "thermal"), in words.
Text ClockReasonText(const std::string& reason);

}  // namespace labcheck::expect

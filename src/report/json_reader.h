// lab-report.json back into the Report model, so that a saved report can be rendered again (the
// HTML of `compare --html`, tests on fixture reports). The JSON holds one language: every Text
// gets it in both. Tolerant like the other readers (docs/report-schema.md): what is missing or
// shaped otherwise is left at its default, never an exception.
#pragma once
#include <nlohmann/json.hpp>

#include "report/report.h"

namespace labcheck {

Report ReportFromJson(const nlohmann::json& json);

}  // namespace labcheck

// The JSON report (docs/report-schema.md): the same data as the Markdown report, in one language.
#pragma once
#include <nlohmann/json.hpp>

#include "report/report.h"

namespace labcheck {

nlohmann::json ReportToJson(const Report& report);
nlohmann::json TableToJson(const Table& table, Lang lang);

}  // namespace labcheck

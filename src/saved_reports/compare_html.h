// `lab_check compare A.json B.json --html [PATH]`: the comparison as a self-contained HTML page:
// the B/A table with the ≥ 2× rows marked, what changed, and every chart of the two reports side
// by side (A left, B right), each full report below it (docs/html-report.md).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "saved_reports/compare.h"

namespace labcheck::saved_reports {

inline constexpr const char* kDefaultCompareHtml = "journal/lab-compare.html";

std::string CompareHtml(const Comparison& c, const nlohmann::json& a, const nlohmann::json& b, Lang lang);

}  // namespace labcheck::saved_reports

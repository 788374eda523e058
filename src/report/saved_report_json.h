// Reading saved lab-report.json files field by field, for `journal`, `compare` and the analyser's
// facts. They work on the JSON, not on the Report model, so reports of other schema versions still
// compare: read what is known, skip the rest (docs/report-schema.md).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/text.h"

namespace labcheck {

// The parsed report, or a Status that names the path, what is wrong and what to do, in `lang`.
Result<nlohmann::json> LoadReportJson(const std::string& path, Lang lang);

struct JsonMeasurement {
  std::string key;
  std::string label;  // in the report's language
  std::string unit;
  double value = 0;
};

// Every measurement of every check, in report order; entries without a key or number are skipped.
std::vector<JsonMeasurement> JsonMeasurements(const nlohmann::json& report);
std::optional<double> JsonValue(const nlohmann::json& report, std::string_view key);
const nlohmann::json* JsonCheck(const nlohmann::json& report, std::string_view id);
const nlohmann::json* JsonSection(const nlohmann::json& report, std::string_view id);
// A string at a path of object keys, "" if any step is missing or not a string.
std::string JsonString(const nlohmann::json& object, std::initializer_list<const char*> path);
// Check data is written by other modules and may not have the shape the schema documents; these
// read it without throwing. DataFlag: a boolean true or a non-zero number; DataString: "" unless
// the value is a string.
bool DataFlag(const nlohmann::json& data, const char* key);
std::string DataString(const nlohmann::json& data, const char* key);
// A label as the report stores it: a string, or {"ru": …, "en": …}.
std::string JsonLabel(const nlohmann::json& label, Lang lang);

}  // namespace labcheck

// The calculators' data files (data/models/*.json) as compiled into the binary.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace labcheck::calc {

// (path relative to data/, contents) of every embedded file.
std::vector<std::pair<std::string, std::string>> EmbeddedDataFiles();
// One file's contents by path relative to data/ ("models/calculator_constants.json"); empty if absent.
std::string_view EmbeddedDataFile(std::string_view path);

// The constants files are compiled in and read by the tests: a file that is not JSON, or a field
// that is missing or not a number, is a build defect, so these abort naming the file and field
// rather than return a half-filled value.
// One embedded file (`path` as above) parsed as a JSON object.
nlohmann::json EmbeddedJsonOrAbort(std::string_view path);
// root[section][field] (root[field] where `section` is null), a number.
const nlohmann::json& NumberOrAbort(const nlohmann::json& root, std::string_view file, const char* section, const char* field);

}  // namespace labcheck::calc

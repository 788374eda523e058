// The calculators' data files (data/models/*.json) as compiled into the binary.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace labcheck::calc {

// (path relative to data/, contents) of every embedded file.
std::vector<std::pair<std::string, std::string>> EmbeddedDataFiles();
// One file's contents by path relative to data/ ("models/calculator_constants.json"); empty if absent.
std::string_view EmbeddedDataFile(std::string_view path);

}  // namespace labcheck::calc

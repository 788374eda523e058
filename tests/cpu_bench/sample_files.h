// Samples for the CPU tests: annotated SMBIOS hex dumps from tests/cpu_bench/data and the
// /proc/cpuinfo samples shared with tests/env/data.
#pragma once
#include <sstream>
#include <string>

#include "platform/files.h"

namespace labcheck::cpu_bench::testing {

inline std::string SourceFile(const std::string& relative) {
  auto text = ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/" + relative);
  return text.ok() ? text.value() : std::string();
}

// "11 54 70 00  # comment" lines → the raw bytes; '#' starts a comment.
inline std::string HexSample(const std::string& name) {
  std::istringstream lines(SourceFile("tests/cpu_bench/data/" + name));
  std::string bytes;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line.substr(0, line.find('#')));
    for (std::string word; words >> word;) bytes.push_back(static_cast<char>(std::stoi(word, nullptr, 16)));
  }
  return bytes;
}

inline std::string CpuInfoSample(const std::string& name) { return SourceFile("tests/env/data/" + name); }

}  // namespace labcheck::cpu_bench::testing

// Reads a sample from tests/env/data/ (real /proc and /sys files; see the README there).
#pragma once
#include <string>

#include "env/sysfs.h"

namespace labcheck::env::testing {

inline std::string Sample(const std::string& name) {
  auto text = ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/tests/env/data/" + name);
  return text.ok() ? text.value() : std::string("missing sample: " + name);
}

}  // namespace labcheck::env::testing

// The saved reports the expect tests keep (tests/expect/data/), read back by journal and compare.
#pragma once
#include <string>

namespace labcheck::saved_reports::testing {

inline std::string Fixture(const std::string& name) { return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/expect/data/" + name; }

}  // namespace labcheck::saved_reports::testing

// A smoke test's SKIP in words: the probe says why with a stable code ("package_missing") and its
// details ({"package": "peft"}); the words live here, in both languages.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace labcheck::smoke {

// `python` is the interpreter's path, named when torch is missing from it.
Text SkipReasonText(const nlohmann::json& result, const std::string& python);

}  // namespace labcheck::smoke

// Pieces every smoke-test judge uses: the FAIL for an incomplete probe result, number formatting.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/check_result.h"
#include "smoke/probe_fields.h"
#include "smoke/smoke_catalog.h"

namespace labcheck::smoke {

// FAIL that names the first missing or mistyped field; the raw result goes to `error`.
CheckResult Incomplete(const SmokeTest& test, const ProbeFields& fields, const nlohmann::json& raw);
CheckResult Passed(const SmokeTest& test, Text summary);

// A string member, or `fallback` when it is missing or not a string (for free-form details).
std::string StringOr(const nlohmann::json& object, const char* key, std::string fallback = {});

bool Finite(double value);
std::string Sci(double value);                 // 1.5e-08
std::string Fixed(double value, int decimals);  // 12.35
// 1234567 -> "1.23M", 168058880 -> "168M"
std::string Count(double value);

}  // namespace labcheck::smoke

#include "smoke/judge_common.h"

#include <cmath>

#include <fmt/format.h>

namespace labcheck::smoke {

CheckResult Incomplete(const SmokeTest& test, const ProbeFields& fields, const nlohmann::json& raw) {
  constexpr size_t kMaxRaw = 4000;
  std::string dump = raw.dump();
  if (dump.size() > kMaxRaw) dump = dump.substr(0, kMaxRaw) + "…";
  return Failed(test.check_id,
                T("проба вернула неполный результат: " + fields.problem(),
                  "the probe's result is incomplete: " + fields.problem()),
                T("пришлите отчёт авторам lab_check: проба и программа разошлись",
                  "please send the report to the lab_check authors: the probe and the program disagree"),
                dump);
}

CheckResult Passed(const SmokeTest& test, Text summary) {
  CheckResult result;
  result.id = test.check_id;
  result.outcome = Outcome::Pass;
  result.summary = std::move(summary);
  return result;
}

std::string StringOr(const nlohmann::json& object, const char* key, std::string fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool Finite(double value) { return std::isfinite(value); }

std::string Sci(double value) { return fmt::format("{:.2g}", value); }

std::string Fixed(double value, int decimals) { return fmt::format("{:.{}f}", value, decimals); }

std::string Count(double value) {
  if (std::fabs(value) >= 1e9) return fmt::format("{:.3g}B", value / 1e9);
  if (std::fabs(value) >= 1e6) return fmt::format("{:.3g}M", value / 1e6);
  if (std::fabs(value) >= 1e3) return fmt::format("{:.3g}K", value / 1e3);
  return fmt::format("{:.0f}", value);
}

}  // namespace labcheck::smoke

#include "report/format.h"

#include <cmath>

#include <fmt/format.h>

namespace labcheck {

std::string FormatNumber(double value) {
  if (!std::isfinite(value)) return "—";
  const double a = std::fabs(value);
  if (a >= 100 || a == std::floor(a)) return fmt::format("{:.0f}", value);
  if (a >= 10) return fmt::format("{:.1f}", value);
  if (a >= 0.1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3g}", value);
}

std::string FormatMeasurement(const Measurement& m) {
  if (m.unit.empty()) return FormatNumber(m.value);
  return FormatNumber(m.value) + " " + m.unit;
}

std::string OutcomeLabel(Outcome outcome, Lang lang) {
  if (outcome == Outcome::NotRun) return lang == Lang::Ru ? "НЕ ЗАПУЩЕНО" : "NOT RUN";
  return OutcomeName(outcome);
}

Text SectionTitle(const std::string& section) {
  if (section == "environment") return T("Окружение", "Environment");
  if (section == "cpu") return T("Процессор и память", "CPU and memory");
  if (section == "gpu") return T("Каждая карта отдельно", "Each GPU");
  if (section == "interconnect") return T("Связь между картами", "Between GPUs");
  if (section == "smoke") return T("Смоук-тесты курса", "Course smoke tests");
  return Text(section);
}

}  // namespace labcheck

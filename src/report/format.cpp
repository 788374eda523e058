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

Text FormatValueWithTrust(const Measurement& m) {
  // A yes/no fact (unit "0/1": P2P access, a bit-exact sum) reads as a word, not "1 0/1".
  if (m.unit == "0/1") return m.value != 0 ? T("да", "yes") : T("нет", "no");
  // A count (GPUs seen) reads as the number: "4", not "4 count", in either language.
  if (m.unit == "count") return Text(FormatNumber(m.value));
  const std::string value = FormatMeasurement(m);
  if (!m.spread) return Text(value);
  const Text word = TrustWord(TrustOf(*m.spread));
  return T(value + " (" + word.ru + ")", value + " (" + word.en + ")");
}

Text FormatSpread(const Measurement& m) {
  if (!m.spread) return Text("—");
  const Spread& s = *m.spread;
  const int n = s.repeats;
  // Russian plural of «повтор»: 1 повтор, 2–4 повтора, 5–20 повторов, 21 повтор…
  const char* ru_word = (n % 10 == 1 && n % 100 != 11)                                   ? "повтор"
                        : (n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14)) ? "повтора"
                                                                                         : "повторов";
  const std::string unit = m.unit.empty() ? "" : " " + m.unit;
  const std::string range = FormatNumber(s.min) + "–" + FormatNumber(s.max) + unit;
  const std::string cv = s.cv ? fmt::format(", CV {:.1f}%", 100 * *s.cv) : "";
  return T(fmt::format("{} {}: медиана {}, {}{}", n, ru_word, FormatNumber(s.median), range, cv),
           fmt::format("{} {}: median {}, {}{}", n, n == 1 ? "repeat" : "repeats", FormatNumber(s.median), range, cv));
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

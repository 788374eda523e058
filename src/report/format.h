// Number formatting shared by every renderer, so that a figure reads the same everywhere.
#pragma once
#include <string>

#include "core/check_result.h"
#include "core/text.h"

namespace labcheck {

// Three significant digits, at most two decimals: 12345 → "12345", 123.4 → "123", 12.34 → "12.3",
// 1.234 → "1.23", 0.0123 → "0.012".
std::string FormatNumber(double value);
// "18.2 GB/s"
std::string FormatMeasurement(const Measurement& m);
// The value cell: "18.2 GB/s", with the trust word where the figure was repeated:
// "18.2 GB/s (стабильно)".
Text FormatValueWithTrust(const Measurement& m);
// "10 повторов: медиана 18.2, 17.9–18.4 GB/s, CV 0.8%"; "—" without a spread.
Text FormatSpread(const Measurement& m);
// Localised status word: PASS/WARN/FAIL/SKIP stay as they are (the seed uses them in Russian too).
std::string OutcomeLabel(Outcome outcome, Lang lang);
// "Ru"/"En" → the section heading for a check section id ("cpu" → "Процессор и память").
Text SectionTitle(const std::string& section);

}  // namespace labcheck

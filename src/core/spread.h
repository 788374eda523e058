// How much a figure moved between its repetitions, and one word for how far to trust it.
// Checks fill a Measurement's Spread where they repeated the measurement; every writer (terminal,
// Markdown, JSON, HTML) only reads it, so the figure reads the same everywhere.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"

namespace labcheck {

struct Spread {
  int repeats = 0;
  // In the figure's own unit (GB/s, TFLOPS), not in milliseconds.
  double median = 0;
  double min = 0;
  double max = 0;
  // Coefficient of variation of the repetitions: standard deviation / mean. Unknown where a
  // benchmark kept only median/min/max; then the trust word is judged on the range instead.
  std::optional<double> cv;
  // Other work competed for the CPUs while it ran (1-minute load above half the CPUs used).
  bool machine_busy = false;
};

enum class Trust { Stable, SomeScatter, Noisy, NoisyMachineBusy, FewRepeats };

// Thresholds (why these): a quiet machine repeats a bandwidth or matmul figure within 1–2%; 10%
// is where a difference between two runs stops meaning anything (the expectations table's own
// "normal" band is 20%). Fewer than 3 repetitions have no spread worth the name.
inline constexpr double kStableCv = 0.02;
inline constexpr double kNoisyCv = 0.10;
inline constexpr int kFewRepeats = 3;

Trust TrustOf(const Spread& s);
// «стабильно» / "stable", «шумно: машина занята» / "noisy: machine busy", …
Text TrustWord(Trust trust);
// "stable", "some_scatter", "noisy", "noisy_machine_busy", "few_repeats" (the JSON report's id)
const char* TrustId(Trust trust);

// From every repetition's figure (CPU benchmarks keep them all).
Spread SpreadOfValues(const std::vector<double>& values, bool machine_busy = false);
// From timings of a rate = work / time (GPU benchmarks keep median/min/max milliseconds): the
// slowest repetition gives the lowest rate. The CV of the rate is, to first order, the CV of the
// times; pass it where the benchmark computed it.
Spread SpreadOfRate(double median_rate, double median_ms, double min_ms, double max_ms, int repeats,
                    std::optional<double> cv_of_times);

}  // namespace labcheck

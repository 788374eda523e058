// A horizontal bar chart: one bar per GPU or per figure, each with its min–max whisker (the
// spread of its repetitions), the expected range behind it and a reference mark (a theoretical
// peak). Used for measured-vs-expected, the per-GPU figures and the CPU figures.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "report/svg_canvas.h"

namespace labcheck {

struct Bar {
  std::string label;           // "GPU 0", "STREAM copy"
  std::optional<double> value;  // none: `missing` says why
  std::string value_text;      // "81.2 TFLOPS · ×0.45"
  Text trust;                  // "шумно" where the figure's spread warns; empty when stable
  std::optional<double> min, max;           // whisker: the repetitions' range
  std::optional<double> band_low, band_high;  // the expected range
  std::optional<double> reference;          // a mark: the theoretical peak
  bool flagged = false;                     // off by 2× or more: drawn in the warning colour
  std::string missing;
};

struct BarChart {
  std::string title;
  std::string unit;
  std::vector<Bar> bars;
  // Legend words, in the report's language.
  std::string measured_label, spread_label, band_label, reference_label;
  double width = 720;
  Lang lang = Lang::Ru;  // of the trust words
};

Svg RenderBarChart(const BarChart& chart);

}  // namespace labcheck

#include "report/bar_chart.h"

#include <algorithm>

#include "report/chart_axes.h"
#include "report/display_width.h"
#include "report/format.h"

namespace labcheck {
namespace {

constexpr double kRowHeight = 30;
constexpr double kBarHeight = 16;
const char* kBarColor = "#4e79a7";
const char* kFlaggedColor = "#e15759";
const char* kReferenceColor = "#b22222";

std::string FitWidth(const std::string& text, double width, double size) {
  if (TextWidth(text, size) <= width) return text;
  return TruncateToWidth(text, static_cast<size_t>(width / (size * 0.58)));
}

}  // namespace

Svg RenderBarChart(const BarChart& chart) {
  bool any_band = false, any_reference = false, any_spread = false, any_flag = false;
  double largest = 0, label_width = 40;
  for (const Bar& b : chart.bars) {
    for (const auto& v : {b.value, b.max, b.band_high, b.reference}) {
      if (v) largest = std::max(largest, *v);
    }
    any_band = any_band || (b.band_low && b.band_high);
    any_reference = any_reference || b.reference.has_value();
    any_spread = any_spread || (b.min && b.max);
    any_flag = any_flag || b.flagged;
    label_width = std::max(label_width, TextWidth(b.label, 12));
  }
  // Long labels are cut rather than run off the left edge.
  constexpr double kMaxLabelWidth = 300;
  label_width = std::min(label_width + 14, kMaxLabelWidth);
  const double value_room = 190;  // the value text right of the longest bar
  const double legend_y = 42;
  const PlotArea plot{label_width + 10, legend_y + 20, chart.width - label_width - 10 - value_room,
                      kRowHeight * static_cast<double>(std::max<size_t>(chart.bars.size(), 1))};
  Svg svg(chart.width, plot.bottom() + 44, chart.title);
  svg.Text(16, 22, chart.title, Svg::Anchor::Start, 15, "#111", true);

  double lx = 16;
  auto legend = [&](const std::string& name, auto draw) {
    draw(lx);
    svg.Text(lx + 22, legend_y + 1, name, Svg::Anchor::Start, 11, "#333");
    lx += 22 + TextWidth(name, 11) + 16;
  };
  legend(chart.measured_label, [&](double x) { svg.Rect(x, legend_y - 9, 16, 10, kBarColor); });
  if (any_flag) legend("> 2×", [&](double x) { svg.Rect(x, legend_y - 9, 16, 10, kFlaggedColor); });
  if (any_spread) legend(chart.spread_label, [&](double x) { svg.Line(x, legend_y - 4, x + 16, legend_y - 4, "#222", 1.5); });
  if (any_band) legend(chart.band_label, [&](double x) { svg.Rect(x, legend_y - 9, 16, 10, kExpectedBandColor, 0.35); });
  if (any_reference) {
    legend(chart.reference_label, [&](double x) { svg.Line(x + 8, legend_y - 11, x + 8, legend_y + 2, kReferenceColor, 2); });
  }

  const double x_max = NiceMax(largest * 1.02);
  const Scale x{0, x_max, plot.left, plot.right()};
  DrawXAxis(svg, x, plot, NiceTicks(0, x_max, 6), [](double v) { return FormatNumber(v); }, chart.unit);
  for (size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& b = chart.bars[i];
    const double top = plot.top + kRowHeight * static_cast<double>(i);
    const double mid = top + kRowHeight / 2;
    svg.Text(plot.left - 8, mid + 4, FitWidth(b.label, label_width - 14, 12), Svg::Anchor::End, 12, "#222");
    if (b.band_low && b.band_high) {
      // A band of one value (the lessons' W = 10 GB/s) is drawn as a line: a 0-pixel rectangle is invisible.
      const double w = std::max(x(*b.band_high) - x(*b.band_low), 3.0);
      svg.Rect(x(*b.band_low) - (w > 3.0 ? 0 : 1.5), top + 2, w, kRowHeight - 4, kExpectedBandColor, w > 3.0 ? 0.28 : 0.8);
    }
    if (!b.value) {
      svg.Text(plot.left + 6, mid + 4, b.missing, Svg::Anchor::Start, 11, "#777");
      continue;
    }
    svg.Rect(plot.left, mid - kBarHeight / 2, x(*b.value) - plot.left, kBarHeight, b.flagged ? kFlaggedColor : kBarColor);
    double text_x = x(*b.value);
    if (b.min && b.max) {
      svg.Line(x(*b.min), mid, x(*b.max), mid, "#222", 1.5);
      svg.Line(x(*b.min), mid - 5, x(*b.min), mid + 5, "#222", 1.5);
      svg.Line(x(*b.max), mid - 5, x(*b.max), mid + 5, "#222", 1.5);
      text_x = std::max(text_x, x(*b.max));
    }
    if (b.reference) {
      svg.Line(x(*b.reference), top + 1, x(*b.reference), top + kRowHeight - 1, kReferenceColor, 2);
      text_x = std::max(text_x, x(*b.reference));
    }
    const std::string trust = b.trust.In(chart.lang);
    svg.Text(text_x + 6, mid + 4, b.value_text + (trust.empty() ? "" : " · " + trust), Svg::Anchor::Start, 11, "#222");
  }
  return svg;
}

}  // namespace labcheck

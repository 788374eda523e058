#include "report/line_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/format.h"

namespace labcheck {
namespace {

constexpr double kBandColorOpacity = 0.18;

// The legend under the title, wrapping to the next row when the chart is full; returns the y
// under its last row.
double DrawLegend(Svg& svg, const LineChart& chart, double y) {
  double x = 16;
  auto item = [&](const std::string& name, const std::string& color, bool band, bool dashed) {
    const double w = 26 + TextWidth(name, 11) + 16;
    if (x + w > chart.width - 10 && x > 16) {
      x = 16;
      y += 16;
    }
    if (band) {
      svg.Rect(x, y - 8, 18, 10, color, kBandColorOpacity * 2);
    } else {
      svg.Line(x, y - 3, x + 18, y - 3, color, 2.5, dashed ? "5 3" : "");
    }
    svg.Text(x + 24, y + 1, name, Svg::Anchor::Start, 11, "#333");
    x += w;
  };
  for (size_t i = 0; i < chart.series.size(); ++i) item(chart.series[i].name, SeriesColor(i), false, chart.series[i].dashed);
  if (chart.band) item(chart.band->label, kExpectedBandColor, true, false);
  for (const HorizontalLine& l : chart.lines) item(l.label, l.color, false, true);
  return y + 14;
}

}  // namespace

Svg RenderLineChart(const LineChart& chart) {
  Svg svg(chart.width, chart.height, chart.title);
  svg.Text(16, 22, chart.title, Svg::Anchor::Start, 15, "#111", true);
  const double legend_bottom = DrawLegend(svg, chart, 42);

  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_hi = 0;
  for (const LineSeries& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (chart.log2_x && x <= 0) continue;
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      if (y) y_hi = std::max(y_hi, *y);
    }
  }
  if (chart.band) y_hi = std::max(y_hi, chart.band->high);
  for (const HorizontalLine& l : chart.lines) y_hi = std::max(y_hi, l.y);
  if (!std::isfinite(x_lo)) {
    x_lo = chart.log2_x ? 1 : 0;
    x_hi = chart.log2_x ? 2 : 1;
  }
  if (x_hi == x_lo) x_hi = chart.log2_x ? x_lo * 2 : x_lo + 1;

  const PlotArea plot{64, legend_bottom + 18, chart.width - 64 - 24, chart.height - legend_bottom - 18 - 48};
  const Scale x{x_lo, x_hi, plot.left, plot.right(), chart.log2_x};
  const double y_max = NiceMax(y_hi * 1.05);
  const Scale y{0, y_max, plot.bottom(), plot.top};
  const TickFormat x_format = chart.x_tick ? chart.x_tick : TickFormat([](double v) { return FormatNumber(v); });

  if (chart.band) {
    const double top = y(std::min(chart.band->high, y_max)), bottom = y(std::max(chart.band->low, 0.0));
    svg.Rect(plot.left, top, plot.width, bottom - top, kExpectedBandColor, kBandColorOpacity);
  }
  DrawYAxis(svg, y, plot, NiceTicks(0, y_max, 5), [](double v) { return FormatNumber(v); }, chart.y_title);
  DrawXAxis(svg, x, plot, chart.log2_x ? Log2Ticks(x_lo, x_hi, 8) : NiceTicks(x_lo, x_hi, 8), x_format, chart.x_title);
  for (const HorizontalLine& l : chart.lines) {
    svg.Line(plot.left, y(l.y), plot.right(), y(l.y), l.color, 1.5, "6 4");
    if (l.label_left) {
      svg.Text(plot.left + 4, y(l.y) - 5, l.label, Svg::Anchor::Start, 11, l.color);
    } else {
      svg.Text(plot.right() - 4, y(l.y) - 5, l.label, Svg::Anchor::End, 11, l.color);
    }
  }
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const LineSeries& s = chart.series[i];
    std::vector<std::pair<double, double>> run;
    auto flush = [&] {
      svg.Polyline(run, SeriesColor(i), 2.2, s.dashed ? "7 4" : "");
      run.clear();
    };
    for (const auto& [px, py] : s.points) {
      if (!py || (chart.log2_x && px <= 0)) {
        flush();
        continue;
      }
      run.emplace_back(x(px), y(*py));
      svg.Circle(x(px), y(*py), chart.series[i].points.size() > 60 ? 1.5 : 3, SeriesColor(i));
    }
    flush();
  }
  return svg;
}

}  // namespace labcheck

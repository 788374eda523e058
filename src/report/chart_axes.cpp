#include "report/chart_axes.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace labcheck {

double Scale::operator()(double value) const {
  double a = domain_lo, b = domain_hi, v = value;
  if (log2) {
    a = std::log2(std::max(a, 1e-300));
    b = std::log2(std::max(b, 1e-300));
    v = std::log2(std::max(v, 1e-300));
  }
  if (b == a) return (range_lo + range_hi) / 2;
  return range_lo + (v - a) / (b - a) * (range_hi - range_lo);
}

namespace {

double NiceStep(double span, int count) {
  const double raw = span / std::max(count, 1);
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int count) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  const double step = NiceStep(hi - lo, count);
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  }
  return ticks;
}

double NiceMax(double largest, double floor) {
  if (!(largest > 0) || !std::isfinite(largest)) return floor;
  const double step = NiceStep(largest, 5);
  return std::max(floor, std::ceil(largest * 1.0001 / step) * step);
}

std::vector<double> Log2Ticks(double lo, double hi, int count) {
  std::vector<double> all;
  if (!(lo > 0) || !(hi >= lo)) return all;
  for (double p = std::exp2(std::ceil(std::log2(lo))); p <= hi * (1 + 1e-9); p *= 2) all.push_back(p);
  if (all.empty() || count <= 0) return all;
  const size_t every = (all.size() + static_cast<size_t>(count) - 1) / static_cast<size_t>(count);
  std::vector<double> thinned;
  for (size_t i = 0; i < all.size(); i += std::max<size_t>(every, 1)) thinned.push_back(all[i]);
  return thinned;
}

std::string BytesTick(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:g} {}", bytes, units[u]);
}

void DrawYAxis(Svg& svg, const Scale& y, const PlotArea& plot, const std::vector<double>& ticks, const TickFormat& format,
               const std::string& title) {
  for (double t : ticks) {
    const double py = y(t);
    svg.Line(plot.left, py, plot.right(), py, "#e3e3e3");
    svg.Text(plot.left - 6, py + 4, format(t), Svg::Anchor::End, 11, "#555");
  }
  svg.Line(plot.left, plot.top, plot.left, plot.bottom(), "#888");
  if (!title.empty()) svg.Text(plot.left, plot.top - 8, title, Svg::Anchor::Start, 11, "#555");
}

void DrawXAxis(Svg& svg, const Scale& x, const PlotArea& plot, const std::vector<double>& ticks, const TickFormat& format,
               const std::string& title) {
  for (double t : ticks) {
    const double px = x(t);
    svg.Line(px, plot.top, px, plot.bottom(), "#efefef");
    svg.Text(px, plot.bottom() + 15, format(t), Svg::Anchor::Middle, 11, "#555");
  }
  svg.Line(plot.left, plot.bottom(), plot.right(), plot.bottom(), "#888");
  if (!title.empty()) svg.Text(plot.left + plot.width / 2, plot.bottom() + 32, title, Svg::Anchor::Middle, 11, "#555");
}

}  // namespace labcheck

// Scales and axes shared by the line and bar charts: a linear or base-2 logarithmic mapping from
// data to pixels, "nice" tick values (1–2–5 steps, powers of two for message sizes), and the
// drawing of an axis with its grid lines and labels.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "report/svg_canvas.h"

namespace labcheck {

struct Scale {
  double domain_lo = 0, domain_hi = 1;  // data
  double range_lo = 0, range_hi = 1;    // pixels
  bool log2 = false;                    // domain must be > 0 then

  double operator()(double value) const;
};

// Tick values covering [lo, hi] in steps of 1, 2 or 5 × 10^k, about `count` of them.
std::vector<double> NiceTicks(double lo, double hi, int count);
// Upper end of the axis: the largest value rounded up to the next nice step (at least `floor`).
double NiceMax(double largest, double floor = 1);
// Powers of two in [lo, hi], thinned so that at most `count` remain.
std::vector<double> Log2Ticks(double lo, double hi, int count);

// "1 MiB", "256 KiB", "4 GiB": message sizes on a log axis.
std::string BytesTick(double bytes);

// The rectangle the data is drawn in.
struct PlotArea {
  double left, top, width, height;
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

using TickFormat = std::function<std::string(double)>;

// Horizontal grid lines with labels left of the plot, and the axis title above them.
void DrawYAxis(Svg& svg, const Scale& y, const PlotArea& plot, const std::vector<double>& ticks, const TickFormat& format,
               const std::string& title);
// Vertical grid lines with labels under the plot, and the axis title under them.
void DrawXAxis(Svg& svg, const Scale& x, const PlotArea& plot, const std::vector<double>& ticks, const TickFormat& format,
               const std::string& title);

}  // namespace labcheck

// A line chart: one line per series (a run, a GPU), with an optional horizontal band (the expected
// range) and horizontal lines (a link ceiling). Used for all-reduce busbw against message size
// (log₂ x) and for the burn timeline.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/chart_axes.h"
#include "report/svg_canvas.h"

namespace labcheck {

struct LineSeries {
  std::string name;
  // A missing y (null in the report) breaks the line instead of drawing it to zero.
  std::vector<std::pair<double, std::optional<double>>> points;
  bool dashed = false;
};

struct HorizontalBand {
  double low = 0, high = 0;
  std::string label;
};

struct HorizontalLine {
  double y = 0;
  std::string label;
  std::string color = "#b22222";  // a ceiling; the expected figure when it is one value is green
  bool label_left = false;        // two lines' labels at opposite ends do not overlap the curves' ends
};

struct LineChart {
  std::string title;
  std::string x_title, y_title;
  bool log2_x = false;
  TickFormat x_tick;  // default: FormatNumber
  std::vector<LineSeries> series;
  std::optional<HorizontalBand> band;
  std::vector<HorizontalLine> lines;
  double width = 720, height = 340;
};

Svg RenderLineChart(const LineChart& chart);

}  // namespace labcheck

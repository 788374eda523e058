// The smallest SVG builder the report's charts need: shapes and text in user units, every string
// XML-escaped on the way in. A chart renders to one Svg; the Svg becomes a standalone .svg file
// (GitHub and editors render those) or an element inlined into the HTML report.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace labcheck {

// The second line of every chart file: how a later run knows which SVGs beside the report are its
// own (and may go when they are no longer drawn) and which are the user's.
inline constexpr const char* kChartFileMarker = "<!-- a chart of a lab_check report -->";

// & < > " ' as entities: safe in text and in attribute values.
std::string XmlEscape(std::string_view text);

// The chart colours: one per series, distinguishable in print and for most colour-blind readers
// (the Tableau 10 order).
const std::string& SeriesColor(size_t index);
// Green, the colour of an expected figure's band in every chart (the series colours keep it last).
inline constexpr const char* kExpectedBandColor = "#59a14f";

class Svg {
 public:
  Svg(double width, double height, std::string title);

  double width() const { return width_; }
  double height() const { return height_; }

  void Rect(double x, double y, double w, double h, std::string_view fill, double opacity = 1,
            std::string_view css_class = "");
  void Line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width = 1,
            std::string_view dash = "");
  // Consecutive points joined; a polyline of one point is drawn as its marker only.
  void Polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, double stroke_width,
                std::string_view dash = "");
  void Circle(double cx, double cy, double r, std::string_view fill);
  enum class Anchor { Start, Middle, End };
  void Text(double x, double y, std::string_view text, Anchor anchor = Anchor::Start, double size = 12,
            std::string_view fill = "#222", bool bold = false);

  // With the XML declaration, kChartFileMarker and the SVG namespace: a file of its own.
  std::string Document() const;
  // The <svg> element for an HTML page (namespace kept: it is valid XML either way).
  std::string Element() const;

 private:
  double width_, height_;
  std::string title_;
  std::string body_;
};

// Text width estimate for layout: no font metrics offline, so columns × an average glyph width.
double TextWidth(std::string_view utf8, double size);

}  // namespace labcheck

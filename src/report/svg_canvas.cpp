#include "report/svg_canvas.h"

#include <fmt/format.h>

#include "report/display_width.h"

namespace labcheck {
namespace {

// Coordinates with one decimal: enough for a screen, and the files stay small.
std::string N(double v) { return fmt::format("{:.1f}", v); }

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0 at all.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

const std::string& SeriesColor(size_t index) {
  // Tableau 10, with its red and green last: red marks ceilings and flagged bars, green the
  // expected figure, so the first series must not look like either.
  static const std::vector<std::string> colors = {"#4e79a7", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948",
                                                  "#9c755f", "#ff9da7", "#bab0ac", "#59a14f", "#e15759"};
  return colors[index % colors.size()];
}

Svg::Svg(double width, double height, std::string title) : width_(width), height_(height), title_(std::move(title)) {}

void Svg::Rect(double x, double y, double w, double h, std::string_view fill, double opacity, std::string_view css_class) {
  body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", N(x), N(y), N(w < 0 ? 0 : w),
                       N(h < 0 ? 0 : h), XmlEscape(fill));
  if (opacity < 1) body_ += fmt::format(" fill-opacity=\"{:.2f}\"", opacity);
  if (!css_class.empty()) body_ += fmt::format(" class=\"{}\"", XmlEscape(css_class));
  body_ += "/>\n";
}

void Svg::Line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width,
               std::string_view dash) {
  body_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"", N(x1), N(y1),
                       N(x2), N(y2), XmlEscape(stroke), N(stroke_width));
  if (!dash.empty()) body_ += fmt::format(" stroke-dasharray=\"{}\"", XmlEscape(dash));
  body_ += "/>\n";
}

void Svg::Polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, double stroke_width,
                   std::string_view dash) {
  if (points.size() < 2) return;
  std::string list;
  for (const auto& [x, y] : points) list += (list.empty() ? "" : " ") + N(x) + "," + N(y);
  body_ += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" "
                       "stroke-linejoin=\"round\"",
                       list, XmlEscape(stroke), N(stroke_width));
  if (!dash.empty()) body_ += fmt::format(" stroke-dasharray=\"{}\"", XmlEscape(dash));
  body_ += "/>\n";
}

void Svg::Circle(double cx, double cy, double r, std::string_view fill) {
  body_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>\n", N(cx), N(cy), N(r), XmlEscape(fill));
}

void Svg::Text(double x, double y, std::string_view text, Anchor anchor, double size, std::string_view fill, bool bold) {
  const char* a = anchor == Anchor::Start ? "start" : anchor == Anchor::Middle ? "middle" : "end";
  body_ += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\" font-size=\"{}\" fill=\"{}\"{}>{}</text>\n", N(x),
                       N(y), a, N(size), XmlEscape(fill), bold ? " font-weight=\"bold\"" : "", XmlEscape(text));
}

std::string Svg::Element() const {
  // Fonts: generic families only, nothing to fetch.
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"{0}\" height=\"{1}\" "
                     "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">\n"
                     "<title>{2}</title>\n<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n{3}</svg>\n",
                     N(width_), N(height_), XmlEscape(title_), body_);
}

std::string Svg::Document() const {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + std::string(kChartFileMarker) + "\n" + Element();
}

double TextWidth(std::string_view utf8, double size) { return static_cast<double>(DisplayWidth(utf8)) * size * 0.58; }

}  // namespace labcheck

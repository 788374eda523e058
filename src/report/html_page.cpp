#include "report/html_page.h"

#include <fmt/format.h>

#include "report/svg_canvas.h"

namespace labcheck {
namespace {

// System fonts only: the page must not fetch anything. Wide tables scroll inside their box so the
// page itself never needs a horizontal scroll bar.
constexpr const char* kStyle = R"css(
body { font-family: "DejaVu Sans", Arial, Helvetica, sans-serif; color: #1d1d1d; background: #fafafa;
       margin: 0; line-height: 1.45; font-size: 15px; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 24px 48px; background: #fff; }
h1 { font-size: 26px; margin: 8px 0 12px; }
h2 { font-size: 21px; margin: 32px 0 10px; border-bottom: 2px solid #e4e4e4; padding-bottom: 4px; }
h3 { font-size: 17px; margin: 22px 0 8px; }
.meta { padding-left: 18px; margin: 0 0 12px; }
.table-box { overflow-x: auto; margin: 8px 0 6px; }
table { border-collapse: collapse; font-size: 13.5px; }
th, td { border: 1px solid #d8d8d8; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f1f3f5; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
.note { color: #555; font-size: 13px; font-style: italic; margin: 2px 0; }
tr.off2x td { background: #fdecea; }
tr.off2x td:last-child { color: #b00020; font-weight: bold; }
.status-PASS { color: #1b7f3b; font-weight: bold; }
.status-WARN { color: #a86500; font-weight: bold; }
.status-FAIL { color: #b00020; font-weight: bold; }
.status-SKIP, .status-NOT-RUN { color: #666; font-weight: bold; }
.interrupted { border-left: 4px solid #b00020; padding: 6px 12px; background: #fdecea; }
figure { margin: 14px 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #e4e4e4; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 18px; }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.side-by-side > div { min-width: 0; }
code { background: #f1f3f5; padding: 0 3px; border-radius: 3px; font-size: 13px; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; font-size: 12.5px; }
nav ul { columns: 2; }
)css";

}  // namespace

std::string HtmlEscape(std::string_view text) { return XmlEscape(text); }

std::string HtmlProse(std::string_view text) {
  const std::string escaped = HtmlEscape(text);
  std::string out;
  bool in_code = false, in_bold = false;
  for (size_t i = 0; i < escaped.size(); ++i) {
    const char c = escaped[i];
    if (c == '`') {
      out += in_code ? "</code>" : "<code>";
      in_code = !in_code;
    } else if (!in_code && c == '*' && i + 1 < escaped.size() && escaped[i + 1] == '*') {
      out += in_bold ? "</strong>" : "<strong>";
      in_bold = !in_bold;
      ++i;
    } else if (c == '\n') {
      out += "<br>";
    } else {
      out += c;
    }
  }
  // An unmatched marker would leave the element open: close it rather than break the page.
  if (in_code) out += "</code>";
  if (in_bold) out += "</strong>";
  return out;
}

std::string HtmlTable(const Table& table, Lang lang, const std::vector<std::string>& row_classes) {
  std::string out;
  if (table.columns.empty()) {
    if (!table.title.empty()) out += "<p><strong>" + HtmlProse(table.title.In(lang)) + "</strong></p>\n";
    return out;
  }
  out += "<div class=\"table-box\"><table>\n";
  if (!table.title.empty()) out += "<caption>" + HtmlProse(table.title.In(lang)) + "</caption>\n";
  out += "<thead><tr>";
  for (const Text& c : table.columns) out += "<th>" + HtmlProse(c.In(lang)) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const std::string cls = r < row_classes.size() ? row_classes[r] : "";
    out += cls.empty() ? "<tr>" : "<tr class=\"" + HtmlEscape(cls) + "\">";
    for (size_t i = 0; i < table.columns.size(); ++i) {
      const std::string cell = i < table.rows[r].size() ? table.rows[r][i].In(lang) : "";
      // Status words get their colour; everything else is prose.
      if (cell == "PASS" || cell == "WARN" || cell == "FAIL" || cell == "SKIP" || cell == "NOT RUN" ||
          cell == "НЕ ЗАПУЩЕНО") {
        const std::string id = cell == "PASS" || cell == "WARN" || cell == "FAIL" || cell == "SKIP" ? cell : "NOT-RUN";
        out += "<td class=\"status-" + id + "\">" + HtmlEscape(cell) + "</td>";
      } else {
        out += "<td>" + HtmlProse(cell) + "</td>";
      }
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  for (const Text& note : table.notes) out += "<p class=\"note\">" + HtmlProse(note.In(lang)) + "</p>\n";
  return out;
}

std::string HtmlDocument(const std::string& title, Lang lang, const std::string& body) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n{}</main>\n</body>\n</html>\n",
                     lang == Lang::Ru ? "ru" : "en", HtmlEscape(title), kStyle, body);
}

std::string HtmlFigure(const std::string& id, const std::string& title, const std::string& svg_element) {
  return fmt::format("<figure id=\"chart-{}\" aria-label=\"{}\">\n{}</figure>\n", HtmlEscape(id), HtmlEscape(title),
                     svg_element);
}

}  // namespace labcheck

#include "saved_reports/compare_html.h"

#include <map>

#include <fmt/format.h>

#include "expect/deviation.h"
#include "report/html_page.h"
#include "report/html_writer.h"
#include "report/json_reader.h"
#include "report/report_charts.h"

namespace labcheck::saved_reports {

using expect::Num;  // figures read as in the «Ожидалось» table
namespace {

Table ChangesTable(const std::string& title, const std::vector<EnvChange>& changes) {
  Table t;
  t.title = Text(title);
  t.columns = {Text(""), Text("A"), Text("B")};
  for (const EnvChange& e : changes) t.AddRow({Text(e.what), Text(e.a), Text(e.b)});
  return t;
}

}  // namespace

std::string CompareHtml(const Comparison& c, const nlohmann::json& a_json, const nlohmann::json& b_json, Lang lang) {
  const bool ru = lang == Lang::Ru;
  const std::string title = ru ? "Сравнение отчётов" : "Report comparison";
  std::string body = "<h1>" + HtmlEscape(title) + "</h1>\n<ul class=\"meta\">\n";
  body += "<li>A: " + HtmlEscape(c.a_name) + "</li>\n<li>B: " + HtmlEscape(c.b_name) + "</li>\n</ul>\n";
  if (c.a_schema != c.b_schema) {
    body += ru ? "<p>Версии схемы разные: сравниваются только общие замеры.</p>\n"
               : "<p>The schema versions differ: only shared measurements are compared.</p>\n";
  }

  Table rows;
  rows.title = Text(ru ? "Замеры" : "Measurements");
  rows.columns = {Text(ru ? "Замер" : "Measurement"), Text("A"), Text("B"), Text("B/A"),
                  Text(ru ? "Расхождение ≥ 2×" : "Off by ≥ 2×")};
  std::vector<std::string> classes;
  for (const CompareRow& r : c.rows) {
    const std::string name = (r.label.empty() ? r.key : r.label + " (`" + r.key + "`)") + (r.unit.empty() ? "" : ", " + r.unit);
    rows.AddRow({Text(name), Text(FigureCell(r.a)), Text(FigureCell(r.b)), Text(r.ratio ? fmt::format("{:.2f}", *r.ratio) : "—"),
                 Text(r.off_2x ? (ru ? "да" : "yes") : "")});
    classes.push_back(r.off_2x ? "off2x" : "");
  }
  body += "<section id=\"measurements\">\n" + HtmlTable(rows, lang, classes) + "</section>\n";
  const std::string env_title = ru ? "Что изменилось в окружении" : "What changed in the environment";
  const std::string out_title = ru ? "Изменившиеся статусы проверок" : "Checks whose outcome changed";
  const std::string none = ru ? "Без изменений." : "No changes.";
  body += "<section id=\"changes\">\n";
  body += c.environment.empty() ? "<p><strong>" + HtmlEscape(env_title) + "</strong>: " + none + "</p>\n"
                                : HtmlTable(ChangesTable(env_title, c.environment), lang);
  body += c.outcomes.empty() ? "<p><strong>" + HtmlEscape(out_title) + "</strong>: " + none + "</p>\n"
                             : HtmlTable(ChangesTable(out_title, c.outcomes), lang);
  body += "</section>\n";

  const Report a = ReportFromJson(a_json), b = ReportFromJson(b_json);
  const std::vector<ReportChart> a_charts = BuildReportCharts(a), b_charts = BuildReportCharts(b);
  // Pairs by chart id, in A's order, then the charts only B has.
  std::vector<std::string> order;
  std::map<std::string, std::pair<const ReportChart*, const ReportChart*>> pairs;
  for (const ReportChart& ch : a_charts) {
    if (pairs.try_emplace(ch.id).second) order.push_back(ch.id);
    pairs[ch.id].first = &ch;
  }
  for (const ReportChart& ch : b_charts) {
    if (pairs.try_emplace(ch.id).second) order.push_back(ch.id);
    pairs[ch.id].second = &ch;
  }
  body += fmt::format("<section id=\"charts\">\n<h2>{}</h2>\n", ru ? "Графики: A слева, B справа" : "Charts: A left, B right");
  const std::string missing = ru ? "<p class=\"note\">В этом отчёте такого графика нет.</p>\n"
                                 : "<p class=\"note\">This report has no such chart.</p>\n";
  for (const std::string& id : order) {
    const auto& [ca, cb] = pairs[id];
    body += "<div class=\"side-by-side\">\n<div>\n";
    body += ca ? HtmlFigure("a-" + id, ca->title, ca->svg.Element()) : missing;
    body += "</div>\n<div>\n";
    body += cb ? HtmlFigure("b-" + id, cb->title, cb->svg.Element()) : missing;
    body += "</div>\n</div>\n";
  }
  body += "</section>\n";
  // The whole reports, folded (<details> needs no script), without their charts: they are above.
  body += fmt::format("<details><summary>{} A: {}</summary>\n{}</details>\n", ReportTitle(lang), HtmlEscape(c.a_name),
                      ReportHtmlBody(a, {}, "ra-"));
  body += fmt::format("<details><summary>{} B: {}</summary>\n{}</details>\n", ReportTitle(lang), HtmlEscape(c.b_name),
                      ReportHtmlBody(b, {}, "rb-"));
  return HtmlDocument(title, lang, body);
}

}  // namespace labcheck::saved_reports

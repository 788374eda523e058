#include "report/html_writer.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/format.h"
#include "report/html_page.h"
#include "report/report_layout.h"

namespace labcheck {
namespace {

// Row classes for the expectations table: the course's >2× rows (data.rows[i].off_2x set).
std::vector<std::string> ExpectationRowClasses(const ReportSection& s) {
  std::vector<std::string> classes;
  if (!s.data.contains("rows") || !s.data["rows"].is_array()) return classes;
  for (const nlohmann::json& row : s.data["rows"]) {
    const bool off = row.is_object() && row.contains("off_2x") && !row["off_2x"].is_null();
    classes.push_back(off ? "off2x" : "");
  }
  return classes;
}

std::string Charts(const std::vector<ReportChart>& charts, const std::string& section, const std::string& prefix) {
  std::string out;
  for (const ReportChart& c : charts) {
    if (c.section == section) out += HtmlFigure(prefix + c.id, c.title, c.svg.Element());
  }
  return out.empty() ? out : "<div class=\"charts\">\n" + out + "</div>\n";
}

std::string SectionHtml(const ReportSection& s, Lang lang, const std::vector<ReportChart>& charts, const std::string& prefix) {
  std::string out = fmt::format("<section id=\"{}{}\">\n<h2>{}</h2>\n", prefix, HtmlEscape(s.id), HtmlProse(s.title.In(lang)));
  for (const Text& p : s.paragraphs) out += "<p>" + HtmlProse(p.In(lang)) + "</p>\n";
  for (size_t i = 0; i < s.tables.size(); ++i) {
    out += HtmlTable(s.tables[i], lang, s.id == "expectations" && i == 0 ? ExpectationRowClasses(s) : std::vector<std::string>{});
  }
  out += Charts(charts, s.id, prefix);
  return out + "</section>\n";
}

std::string CheckHtml(const CheckResult& c, Lang lang) {
  const std::string status = OutcomeLabel(c.outcome, lang);
  const std::string status_class = c.outcome == Outcome::NotRun ? "NOT-RUN" : OutcomeName(c.outcome);
  std::string out = fmt::format("<article>\n<h3>{} — <span class=\"status-{}\">{}</span></h3>\n", HtmlProse(c.title.In(lang)),
                                status_class, HtmlEscape(status));
  const bool ru = lang == Lang::Ru;
  if (!c.summary.empty()) out += "<p>" + HtmlProse(c.summary.In(lang)) + "</p>\n";
  if (!c.reason.empty()) out += fmt::format("<p><strong>{}</strong> {}</p>\n", ru ? "Причина:" : "Reason:", HtmlProse(c.reason.In(lang)));
  if (!c.hint.empty()) out += fmt::format("<p><strong>{}</strong> {}</p>\n", ru ? "Что делать:" : "What to do:", HtmlProse(c.hint.In(lang)));
  const Table figures = MeasurementTable(c);
  if (!figures.rows.empty()) out += HtmlTable(figures, lang);
  for (const Table& t : c.tables) out += HtmlTable(t, lang);
  if (!c.error.empty()) {
    // <details> opens and closes without JavaScript.
    out += fmt::format("<details><summary>{}</summary>\n<pre>{}</pre>\n</details>\n", ru ? "Текст ошибки" : "Error text",
                       HtmlEscape(c.error));
  }
  return out + "</article>\n";
}

}  // namespace

std::string ReportTitle(Lang lang) { return lang == Lang::Ru ? "Отчёт lab_check" : "lab_check report"; }

std::string ReportHtmlBody(const Report& report, const std::vector<ReportChart>& charts, const std::string& prefix) {
  const Lang lang = report.lang;
  const bool ru = lang == Lang::Ru;
  std::string out;
  out += "<ul class=\"meta\">\n";
  out += fmt::format("<li>{}: {}</li>\n", ru ? "Дата" : "Date", HtmlEscape(report.meta.started_at));
  out += fmt::format("<li>lab_check {}</li>\n", HtmlEscape(ToolVersionLine(report.meta)));
  out += fmt::format("<li>{}: {}</li>\n", ru ? "Режим" : "Mode", HtmlEscape(ModeLine(report)));
  out += fmt::format("<li>{}: {:.0f} s</li>\n", ru ? "Длительность" : "Duration", report.meta.duration_s);
  out += fmt::format("<li>Python: {}</li>\n", HtmlEscape(report.meta.python.empty() ? "—" : report.meta.python));
  out += fmt::format("<li>{}: {}</li>\n</ul>\n", ru ? "Итог" : "Result", HtmlEscape(CountsLine(report)));
  // The simulator's figures never pass as a real card's: the Markdown report's notice, here too.
  if (const std::optional<Notice> simulated = SimulatedMachineNotice(report))
    out += "<p class=\"interrupted\"><strong>" + HtmlEscape(simulated->heading.In(report.lang)) + "</strong> " +
           HtmlEscape(simulated->detail.In(report.lang)) + "</p>\n";
  if (report.meta.interrupted) {
    out += ru ? "<p class=\"interrupted\"><strong>Проверка прервана (Ctrl-C).</strong> Ниже всё, что успели измерить; остальное помечено «НЕ ЗАПУЩЕНО».</p>\n"
              : "<p class=\"interrupted\"><strong>The run was interrupted (Ctrl-C).</strong> Below is everything measured so far; the rest is marked NOT RUN.</p>\n";
  }
  out += fmt::format("<section id=\"{}summary\">\n", prefix) + HtmlTable(StatusTable(report), lang) + "</section>\n";
  for (const ReportSection& s : report.sections) {
    if (IsLeadingSection(s.id)) out += SectionHtml(s, lang, charts, prefix);
  }
  std::vector<std::string> sections = SectionOrder();
  for (const CheckResult& c : report.checks) {
    if (std::find(sections.begin(), sections.end(), c.section) == sections.end()) sections.push_back(c.section);
  }
  for (const std::string& section : sections) {
    std::string checks;
    for (const CheckResult& c : report.checks) {
      if (c.section == section) checks += CheckHtml(c, lang);
    }
    if (checks.empty()) continue;
    out += fmt::format("<section id=\"{}{}\">\n<h2>{}</h2>\n", prefix, HtmlEscape(section), HtmlProse(SectionTitle(section).In(lang)));
    out += checks + Charts(charts, section, prefix) + "</section>\n";
  }
  for (const ReportSection& s : report.sections) {
    if (!IsLeadingSection(s.id)) out += SectionHtml(s, lang, charts, prefix);
  }
  return out;
}

std::string ReportToHtml(const Report& report, const std::vector<ReportChart>& charts) {
  const std::string title = ReportTitle(report.lang);
  return HtmlDocument(title, report.lang, "<h1>" + HtmlEscape(title) + "</h1>\n" + ReportHtmlBody(report, charts, ""));
}

}  // namespace labcheck

#include "report/markdown_writer.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/report_layout.h"

namespace labcheck {
namespace {

// Table cells cannot hold '|' or line breaks.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += "<br>";
    else out += c;
  }
  return out.empty() ? " " : out;
}

// Image links to the section's charts; brackets in a title would end the alt text, so they become quotes.
void AppendCharts(std::string& md, const std::vector<ChartLink>& charts, const std::string& section) {
  for (const auto& c : charts) {
    if (c.section != section) continue;
    std::string alt;
    for (char ch : c.title) alt += ch == '[' || ch == ']' ? '\'' : ch;
    md += fmt::format("![{}]({})\n\n", alt, c.file);
  }
}

void AppendSection(std::string& md, const ReportSection& s, Lang lang, const std::vector<ChartLink>& charts) {
  md += fmt::format("## {}\n\n", s.title.In(lang));
  for (const auto& p : s.paragraphs) md += p.In(lang) + "\n\n";
  for (const auto& t : s.tables) md += TableToMarkdown(t, lang);
  AppendCharts(md, charts, s.id);
}

void AppendCheck(std::string& md, const CheckResult& c, Lang lang) {
  md += fmt::format("### {} — {}\n\n", c.title.In(lang), OutcomeLabel(c.outcome, lang));
  if (!c.summary.empty()) md += c.summary.In(lang) + "\n\n";
  if (!c.reason.empty()) md += fmt::format("**{}** {}\n\n", lang == Lang::Ru ? "Причина:" : "Reason:", c.reason.In(lang));
  if (!c.hint.empty()) md += fmt::format("**{}** {}\n\n", lang == Lang::Ru ? "Что делать:" : "What to do:", c.hint.In(lang));
  Table figures = MeasurementTable(c);
  if (!figures.rows.empty()) md += TableToMarkdown(figures, lang);
  for (const auto& t : c.tables) md += TableToMarkdown(t, lang);
  if (!c.error.empty()) {
    md += fmt::format("<details><summary>{}</summary>\n\n```\n{}\n```\n\n</details>\n\n",
                      lang == Lang::Ru ? "Текст ошибки" : "Error text", c.error);
  }
}

}  // namespace

std::string TableToMarkdown(const Table& table, Lang lang) {
  std::string md;
  if (!table.title.empty()) md += fmt::format("**{}**\n\n", table.title.In(lang));
  if (table.columns.empty()) return md;
  md += "|";
  for (const auto& c : table.columns) md += " " + Cell(c.In(lang)) + " |";
  md += "\n|";
  for (size_t i = 0; i < table.columns.size(); ++i) md += " --- |";
  md += "\n";
  for (const auto& row : table.rows) {
    md += "|";
    for (size_t i = 0; i < table.columns.size(); ++i) md += " " + Cell(i < row.size() ? row[i].In(lang) : "") + " |";
    md += "\n";
  }
  md += "\n";
  for (const auto& note : table.notes) md += "_" + note.In(lang) + "_\n\n";
  return md;
}

std::string ReportToMarkdown(const Report& report, const std::vector<ChartLink>& charts) {
  const Lang lang = report.lang;
  const bool ru = lang == Lang::Ru;
  std::string md = ru ? "# Отчёт lab_check\n\n" : "# lab_check report\n\n";
  md += fmt::format("- {}: {}\n", ru ? "Дата" : "Date", report.meta.started_at);
  md += fmt::format("- lab_check {}\n", ToolVersionLine(report.meta));
  md += fmt::format("- {}: {}\n", ru ? "Режим" : "Mode", ModeLine(report));
  md += fmt::format("- {}: {:.0f} s\n", ru ? "Длительность" : "Duration", report.meta.duration_s);
  md += fmt::format("- Python: {}\n", report.meta.python.empty() ? "—" : report.meta.python);
  md += fmt::format("- {}: {}\n\n", ru ? "Итог" : "Result", CountsLine(report));
  // tests/sim's libraries answered instead of a driver: say so before any figure (gpu.inventory).
  if (const std::optional<Notice> simulated = SimulatedMachineNotice(report))
    md += "> **" + simulated->heading.In(lang) + "** " + simulated->detail.In(lang) + "\n\n";
  if (report.meta.interrupted) {
    md += ru ? "> **Проверка прервана (Ctrl-C).** Ниже всё, что успели измерить; остальное помечено «НЕ ЗАПУЩЕНО».\n\n"
             : "> **The run was interrupted (Ctrl-C).** Below is everything measured so far; the rest is marked NOT RUN.\n\n";
  }
  md += TableToMarkdown(StatusTable(report), lang);
  for (const auto& s : report.sections) {
    if (IsLeadingSection(s.id)) AppendSection(md, s, lang, charts);
  }
  std::vector<std::string> sections = SectionOrder();
  for (const auto& c : report.checks) {
    if (std::find(sections.begin(), sections.end(), c.section) == sections.end()) sections.push_back(c.section);
  }
  for (const auto& section : sections) {
    bool any = false;
    for (const auto& c : report.checks) {
      if (c.section != section) continue;
      if (!any) md += fmt::format("## {}\n\n", SectionTitle(section).In(lang));
      any = true;
      AppendCheck(md, c, lang);
    }
    if (any) AppendCharts(md, charts, section);
  }
  for (const auto& s : report.sections) {
    if (!IsLeadingSection(s.id)) AppendSection(md, s, lang, charts);
  }
  return md;
}

}  // namespace labcheck

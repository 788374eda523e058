// The terminal's default view (issue 38): what a person at a screen acts on, in the order they
// read it. The summary table, each section's brief form (the expectations rows that were
// measured, the two factors), each WARN/FAIL with its hint. The checks' own tables, the notes and
// the sources stay in the Markdown, HTML and JSON, and `--verbose` prints them here too.
#include "report/report_layout.h"
#include "report/terminal_writer.h"

namespace labcheck {
namespace {

std::string Heading(const std::string& text, const TerminalStyle& style) {
  std::string out;
  for (const std::string& line : WrapToWidth(text, style.width))
    out += (style.color ? "\x1b[1m" + line + "\x1b[0m" : line) + "\n";
  return out;
}

std::string BriefSection(const ReportSection& s, Lang lang, const TerminalStyle& style) {
  if (s.brief_lines.empty() && s.brief_tables.empty()) return "";
  std::string out = Heading(s.title.In(lang), style);
  for (Table t : s.brief_tables) {
    if (t.title.In(lang) == s.title.In(lang)) t.title = Text();  // the heading just printed
    out += TableToTerminal(t, lang, style);
  }
  // The lines say what the table does not: why a row is low, what was not measured, what to do.
  for (const Text& line : s.brief_lines) out += WrapWithPrefix(line.In(lang), style.width, "  ", "    ");
  return s.brief_lines.empty() ? out : out + "\n";
}

}  // namespace

std::string ReportToTerminalBrief(const Report& report, const TerminalStyle& style) {
  const Lang lang = report.lang;
  std::string out = "\n" + TableToTerminal(BriefStatusTable(report), lang, style);
  for (const auto& s : report.sections)
    if (IsLeadingSection(s.id)) out += BriefSection(s, lang, style);
  out += WarnAndFailBlocks(report, style);
  bool first = true;
  for (const auto& s : report.sections) {
    if (IsLeadingSection(s.id) || (s.brief_lines.empty() && s.brief_tables.empty())) continue;
    if (first && !out.empty() && out.back() == '\n' && out.size() > 1 && out[out.size() - 2] != '\n') out += '\n';
    first = false;
    out += BriefSection(s, lang, style);
  }
  out += WrapWithPrefix(report.lang == Lang::Ru ? "Всё остальное — в отчёте ниже или в терминале с --verbose."
                                               : "Everything else is in the report below, or in the terminal with --verbose.",
                       style.width, "", "");
  return out;
}

}  // namespace labcheck

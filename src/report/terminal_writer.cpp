#include "report/terminal_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "report/display_width.h"
#include "report/format.h"
#include "report/report_layout.h"

namespace labcheck {
namespace {

constexpr size_t kMaxCellWidth = 60;

std::string Bold(const std::string& s, const TerminalStyle& style) {
  return style.color ? "\x1b[1m" + s + "\x1b[0m" : s;
}

std::string Colorize(const std::string& cell, const TerminalStyle& style) {
  if (!style.color) return cell;
  if (cell == "PASS") return "\x1b[32mPASS\x1b[0m";
  if (cell == "WARN") return "\x1b[33mWARN\x1b[0m";
  if (cell == "FAIL") return "\x1b[31mFAIL\x1b[0m";
  if (cell == "SKIP") return "\x1b[90mSKIP\x1b[0m";
  return cell;
}

// Multi-line cells and long cells are flattened and cut for the terminal; the Markdown report
// keeps them whole.
std::string Flatten(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  return TruncateToWidth(out, kMaxCellWidth);
}

}  // namespace

TerminalStyle TerminalStyle::ForStream(int fd) {
  TerminalStyle style;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  style.color = isatty(fd) && !(no_color && *no_color) && !(term && std::strcmp(term, "dumb") == 0);
  return style;
}

std::string TableToTerminal(const Table& table, Lang lang, const TerminalStyle& style) {
  std::string out;
  if (!table.title.empty()) out += Bold(table.title.In(lang), style) + "\n";
  if (table.columns.empty()) return out;
  const size_t n = table.columns.size();
  std::vector<std::vector<std::string>> cells;
  cells.emplace_back();
  for (const auto& c : table.columns) cells.back().push_back(Flatten(c.In(lang)));
  for (const auto& row : table.rows) {
    cells.emplace_back();
    for (size_t i = 0; i < n; ++i) cells.back().push_back(Flatten(i < row.size() ? row[i].In(lang) : ""));
  }
  std::vector<size_t> widths(n, 0);
  for (const auto& row : cells) {
    for (size_t i = 0; i < n; ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  auto line = [&](const std::vector<std::string>& row, bool header) {
    std::string s = " ";
    for (size_t i = 0; i < n; ++i) {
      const std::string shown = header ? row[i] : Colorize(row[i], style);
      // Colour codes take no columns: pad by the plain text's width.
      const size_t pad = widths[i] - DisplayWidth(row[i]);
      s += " " + shown + std::string(pad, ' ') + (i + 1 < n ? " " : "");
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  out += line(cells[0], true);
  std::string rule = " ";
  for (size_t i = 0; i < n; ++i) {
    rule += " ";
    for (size_t k = 0; k < widths[i]; ++k) rule += "─";
    rule += i + 1 < n ? " " : "";
  }
  out += rule + "\n";
  for (size_t r = 1; r < cells.size(); ++r) out += line(cells[r], false);
  for (const auto& note : table.notes) out += "  " + note.In(lang) + "\n";
  return out + "\n";
}

std::string ReportToTerminal(const Report& report, const TerminalStyle& style) {
  const Lang lang = report.lang;
  std::string out = "\n" + TableToTerminal(StatusTable(report), lang, style);
  for (const auto& s : report.sections) {
    if (!IsLeadingSection(s.id)) continue;
    out += Bold(s.title.In(lang), style) + "\n";
    for (const auto& p : s.paragraphs) out += "  " + p.In(lang) + "\n";
    for (const auto& t : s.tables) out += TableToTerminal(t, lang, style);
  }
  for (const auto& c : report.checks) {
    Table figures = MeasurementTable(c);
    if (figures.rows.empty() && c.tables.empty()) continue;
    figures.title = Text(c.title.ru + " — " + OutcomeLabel(c.outcome, Lang::Ru),
                         c.title.en + " — " + OutcomeLabel(c.outcome, Lang::En));
    // The terminal shows figure and value; the method stays in the Markdown report.
    for (auto& row : figures.rows) row.resize(3);
    figures.columns.resize(3);
    if (!figures.rows.empty()) out += TableToTerminal(figures, lang, style);
    for (const auto& t : c.tables) out += TableToTerminal(t, lang, style);
  }
  for (const auto& c : report.checks) {
    if (c.outcome != Outcome::Fail && c.outcome != Outcome::Warn) continue;
    out += fmt::format("{} {}: {}\n", Colorize(OutcomeName(c.outcome), style), c.title.In(lang),
                       c.reason.In(lang).empty() ? c.summary.In(lang) : c.reason.In(lang));
    if (!c.hint.empty()) out += "  → " + c.hint.In(lang) + "\n";
  }
  for (const auto& s : report.sections) {
    if (IsLeadingSection(s.id)) continue;
    out += "\n" + Bold(s.title.In(lang), style) + "\n";
    for (const auto& p : s.paragraphs) out += "  " + p.In(lang) + "\n";
    for (const auto& t : s.tables) out += TableToTerminal(t, lang, style);
  }
  return out;
}

}  // namespace labcheck

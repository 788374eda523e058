#include "report/terminal_writer.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "report/display_width.h"
#include "report/format.h"
#include "report/report_layout.h"

namespace labcheck {
namespace {

// Without a width limit, long cells are cut here (the Markdown report keeps them whole).
constexpr size_t kMaxCellWidth = 60;
constexpr size_t kIndent = 2;  // every table line starts with two spaces
constexpr size_t kGap = 2;     // between columns
// A column is not squeezed below this (or its header's longest word): narrower, the text would be
// a column of syllables, and the column folds under the row instead.
constexpr size_t kMinColumnWidth = 12;
// The longest word a column keeps whole: a 64-bit word in hex ("0xffff806105cfffe7", the memory
// test's expected and read values) is 18; a longer one (a path) may break.
constexpr size_t kMaxUnbrokenWord = 18;

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

// The unlimited layout: multi-line cells flattened, long ones cut.
std::string Flatten(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  return TruncateToWidth(out, kMaxCellWidth);
}

size_t WidestLine(const std::string& text) {
  size_t widest = 0;
  for (const std::string& line : WrapToWidth(text, 0)) widest = std::max(widest, DisplayWidth(line));
  return widest;
}

}  // namespace

std::string WrapWithPrefix(const std::string& text, size_t width, const std::string& first, const std::string& rest) {
  if (width == 0) return first + text + "\n";
  std::string out;
  const size_t room = std::max<size_t>(width - std::max(DisplayWidth(first), DisplayWidth(rest)), 10);
  bool is_first = true;
  for (const std::string& line : WrapToWidth(text, room)) {
    out += (is_first ? first : rest) + line + "\n";
    is_first = false;
  }
  return out;
}

namespace {

// Which columns stand in the grid and how wide each is, for a screen of `width` columns.
struct ColumnLayout {
  size_t shown = 0;            // the first `shown` columns form the grid; the rest fold under the row
  std::vector<size_t> widths;  // of the shown columns
};

ColumnLayout LayOut(const std::vector<std::vector<std::string>>& cells, size_t width) {
  const size_t n = cells.front().size();
  std::vector<size_t> natural(n, 0), minimum(n, 0);
  for (const auto& row : cells) {
    for (size_t i = 0; i < n; ++i) natural[i] = std::max(natural[i], WidestLine(row[i]));
  }
  // Not narrower than the header's longest word, nor than the cells' longest word or figure with
  // its unit up to kMaxUnbrokenWord ("1024×1024×1024" and "716.8 GB/s" stay whole; a path may break).
  for (size_t i = 0; i < n; ++i) {
    size_t word = WidestUnbreakable(cells.front()[i]);
    for (size_t r = 1; r < cells.size(); ++r) word = std::max(word, std::min(WidestUnbreakable(cells[r][i]), kMaxUnbrokenWord));
    minimum[i] = std::min(natural[i], std::max(kMinColumnWidth, word));
  }
  ColumnLayout layout;
  if (width == 0) {
    layout.shown = n;
    layout.widths = natural;
    return layout;
  }
  auto room = [&](size_t shown) {
    const size_t taken = kIndent + kGap * (shown - 1);
    return width > taken ? width - taken : 0;
  };
  layout.shown = n;
  // Fold the rightmost columns (the least important by the tables' convention: method, source,
  // comment) until the minimum widths of the rest fit; the first two always stay.
  while (layout.shown > 2 &&
         std::accumulate(minimum.begin(), minimum.begin() + layout.shown, size_t{0}) > room(layout.shown)) {
    --layout.shown;
  }
  const size_t available = room(layout.shown);
  layout.widths.assign(minimum.begin(), minimum.begin() + layout.shown);
  size_t used = std::accumulate(layout.widths.begin(), layout.widths.end(), size_t{0});
  if (used > available) {
    // Even two minimal columns do not fit (a very narrow screen): share what there is.
    for (size_t i = 0; i < layout.shown; ++i) layout.widths[i] = std::max<size_t>(available / layout.shown, 4);
    return layout;
  }
  // Water-filling: each spare column goes to the narrowest column that still wants more, so short
  // columns keep their natural width and long ones share the rest evenly.
  for (size_t spare = available - used; spare > 0; --spare) {
    size_t best = layout.shown;
    for (size_t i = 0; i < layout.shown; ++i) {
      if (layout.widths[i] < natural[i] && (best == layout.shown || layout.widths[i] < layout.widths[best])) best = i;
    }
    if (best == layout.shown) break;
    ++layout.widths[best];
  }
  return layout;
}

// One row of the grid: each cell wrapped in its column, side by side, then the folded columns.
std::string RenderRow(const std::vector<std::string>& row, const std::vector<std::string>& header,
                      const ColumnLayout& layout, bool is_header, const TerminalStyle& style) {
  const bool limited = style.width > 0;
  std::vector<std::vector<std::string>> lines(layout.shown);
  size_t height = 0;
  for (size_t i = 0; i < layout.shown; ++i) {
    lines[i] = WrapToWidth(row[i], limited ? layout.widths[i] : 0);
    height = std::max(height, lines[i].size());
  }
  std::string out;
  for (size_t k = 0; k < height; ++k) {
    std::string s(kIndent, ' ');
    for (size_t i = 0; i < layout.shown; ++i) {
      const std::string plain = k < lines[i].size() ? lines[i][k] : "";
      // Colour codes take no columns: pad by the plain text's width.
      const size_t pad = layout.widths[i] > DisplayWidth(plain) ? layout.widths[i] - DisplayWidth(plain) : 0;
      s += (is_header ? plain : Colorize(plain, style)) + std::string(pad, ' ');
      if (i + 1 < layout.shown) s += std::string(kGap, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  }
  if (is_header) return out;
  for (size_t i = layout.shown; i < row.size(); ++i) {
    if (row[i].empty() || row[i] == "—") continue;
    const std::string label = header[i] + ": ";
    out += WrapWithPrefix(label + row[i], style.width, std::string(kIndent + 2, ' '), std::string(kIndent + 4, ' '));
  }
  return out;
}

}  // namespace

size_t TerminalWidth(int fd) {
  if (const char* columns = std::getenv("COLUMNS"); columns && *columns) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end && *end == '\0' && value > 0) return std::max<size_t>(static_cast<size_t>(value), kMinWidth);
  }
  for (int candidate : {fd, static_cast<int>(STDERR_FILENO)}) {
    struct winsize size {};
    if (isatty(candidate) && ioctl(candidate, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
      return std::max<size_t>(size.ws_col, kMinWidth);
    }
  }
  return kPipedWidth;
}

TerminalStyle TerminalStyle::ForStream(int fd) {
  TerminalStyle style;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  style.color = isatty(fd) && !(no_color && *no_color) && !(term && std::strcmp(term, "dumb") == 0);
  style.width = TerminalWidth(fd);
  return style;
}

std::string TableToTerminal(const Table& table, Lang lang, const TerminalStyle& style) {
  std::string out;
  if (!table.title.empty()) {
    for (const std::string& line : WrapToWidth(table.title.In(lang), style.width)) out += Bold(line, style) + "\n";
  }
  if (table.columns.empty()) return out;
  const size_t n = table.columns.size();
  const bool limited = style.width > 0;
  auto cell = [&](const std::string& text) { return limited ? text : Flatten(text); };
  std::vector<std::vector<std::string>> cells;
  cells.emplace_back();
  for (const auto& c : table.columns) cells.back().push_back(cell(c.In(lang)));
  for (const auto& row : table.rows) {
    cells.emplace_back();
    for (size_t i = 0; i < n; ++i) cells.back().push_back(cell(i < row.size() ? row[i].In(lang) : ""));
  }
  const ColumnLayout layout = LayOut(cells, style.width);
  out += RenderRow(cells[0], cells[0], layout, true, style);
  std::string rule(kIndent, ' ');
  for (size_t i = 0; i < layout.shown; ++i) {
    for (size_t k = 0; k < layout.widths[i]; ++k) rule += "─";
    if (i + 1 < layout.shown) rule += std::string(kGap, ' ');
  }
  out += rule + "\n";
  for (size_t r = 1; r < cells.size(); ++r) out += RenderRow(cells[r], cells[0], layout, false, style);
  for (const auto& note : table.notes) out += WrapWithPrefix(note.In(lang), style.width, "  ", "  ");
  return out + "\n";
}

std::string WarnAndFailBlocks(const Report& report, const TerminalStyle& style) {
  const Lang lang = report.lang;
  std::string out;
  for (const auto& c : report.checks) {
    if (c.outcome != Outcome::Fail && c.outcome != Outcome::Warn) continue;
    const std::string status = OutcomeName(c.outcome);
    const std::string why = c.reason.In(lang).empty() ? c.summary.In(lang) : c.reason.In(lang);
    std::string block = WrapWithPrefix(status + " " + c.title.In(lang) + ": " + why, style.width, "", "  ");
    // The block starts with the status word; only that word gets the colour.
    if (block.compare(0, status.size(), status) == 0) block.replace(0, status.size(), Colorize(status, style));
    out += block;
    if (!c.hint.empty()) out += WrapWithPrefix(c.hint.In(lang), style.width, "  → ", "    ");
  }
  return out;
}

std::string ReportToTerminal(const Report& report, const TerminalStyle& style) {
  const Lang lang = report.lang;
  const size_t width = style.width;
  auto heading = [&](const std::string& text) {
    std::string out;
    for (const std::string& line : WrapToWidth(text, width)) out += Bold(line, style) + "\n";
    return out;
  };
  std::string out = "\n" + TableToTerminal(StatusTable(report), lang, style);
  for (const auto& s : report.sections) {
    if (!IsLeadingSection(s.id)) continue;
    out += heading(s.title.In(lang));
    for (const auto& p : s.paragraphs) out += WrapWithPrefix(p.In(lang), width, "  ", "  ");
    for (Table t : s.tables) {
      // A table named like its section would repeat the heading just printed.
      if (t.title.In(lang) == s.title.In(lang)) t.title = Text();
      out += TableToTerminal(t, lang, style);
    }
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
  out += WarnAndFailBlocks(report, style);
  for (const auto& s : report.sections) {
    if (IsLeadingSection(s.id)) continue;
    out += '\n';
    out += heading(s.title.In(lang));
    for (const auto& p : s.paragraphs) out += WrapWithPrefix(p.In(lang), width, "  ", "  ");
    for (const auto& t : s.tables) out += TableToTerminal(t, lang, style);
  }
  return out;
}

}  // namespace labcheck

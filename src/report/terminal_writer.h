// What the terminal shows after the checks: by default a brief view (the status table, the
// sections' brief forms, the WARN/FAIL hints); with --verbose the status table, each check's
// figures and tables, the expectations table and the recommendations. Colour only where TerminalStyle allows it; lines
// never wider than TerminalStyle::width (long cells wrap inside their column, and when the columns
// cannot all fit, the rightmost ones fold into indented lines under their row).
#pragma once
#include <cstddef>
#include <string>

#include "report/report.h"

namespace labcheck {

// Width used when the output is not a terminal and COLUMNS is not set: wide enough for the status
// table's result column, narrow enough for a log viewer or an e-mail.
inline constexpr size_t kPipedWidth = 100;
// Below this the tables cannot be laid out sensibly; narrower terminals get this and wrap.
inline constexpr size_t kMinWidth = 40;

// Screen columns for output on `fd`: $COLUMNS when it holds a number, else the terminal's size
// (ioctl TIOCGWINSZ on `fd`, then on stderr, which is still the screen under `lab_check | tee`),
// else kPipedWidth. Never below kMinWidth.
size_t TerminalWidth(int fd);

struct TerminalStyle {
  bool color = false;
  // Columns a line may take; 0: no limit, and cells are cut at 60 columns instead (the layout the
  // calculators' golden files were written with).
  size_t width = 0;
  // Decided once (hyperfine): no colour when the stream is not a terminal, NO_COLOR is set, or
  // TERM is "dumb". The width is TerminalWidth(fd).
  static TerminalStyle ForStream(int fd);
};

std::string TableToTerminal(const Table& table, Lang lang, const TerminalStyle& style);
// Everything: the status table, every check's figures and tables, every section (--verbose).
std::string ReportToTerminal(const Report& report, const TerminalStyle& style);
// What a screen needs by default (terminal_brief.cpp): the status table with one figure per check,
// each section's brief lines and tables, and each WARN/FAIL with its hint. The rest is in the files.
std::string ReportToTerminalBrief(const Report& report, const TerminalStyle& style);

// Lines of `text` wrapped at spaces to `width`, each prefixed: `first` on the first line, `rest`
// after. Without a width limit the text goes out as it is, after `first`.
std::string WrapWithPrefix(const std::string& text, size_t width, const std::string& first, const std::string& rest);
// «WARN <check>: <reason>» and «→ <hint>» for each check that warned or failed, in report order.
std::string WarnAndFailBlocks(const Report& report, const TerminalStyle& style);

}  // namespace labcheck

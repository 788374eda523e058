// What the terminal shows after the checks: the status table, each check's figures and tables,
// the expectations table and the recommendations. Colour only where TerminalStyle allows it.
#pragma once
#include <string>

#include "report/report.h"

namespace labcheck {

struct TerminalStyle {
  bool color = false;
  // Decided once (hyperfine): no colour when the stream is not a terminal, NO_COLOR is set, or
  // TERM is "dumb".
  static TerminalStyle ForStream(int fd);
};

std::string TableToTerminal(const Table& table, Lang lang, const TerminalStyle& style);
std::string ReportToTerminal(const Report& report, const TerminalStyle& style);

}  // namespace labcheck

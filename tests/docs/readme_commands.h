// The commands the front pages show (issue 52): every `build/lab_check …` line in a fenced shell
// block of README.md and README.ru.md, and every `scripts/setup-and-check.sh …` line (its arguments
// go to lab_check), as lab_check's own command line would receive them. Test tooling, not product
// code: the test runs each through `lab_check internal-parse-only`, the real parser with nothing run.
#pragma once

#include <string>
#include <vector>

namespace labcheck::docs {

struct ShownCommand {
  int line = 0;                    // 1-based, in the page
  std::string text;                // the line as the page shows it, comment included
  std::vector<std::string> args;   // what lab_check receives: after the program, before any `# …`
};

// Lines inside ``` fences (sh, bash, console or none) whose first word is build/lab_check or
// scripts/setup-and-check.sh. Arguments are split as a POSIX shell splits them for these lines:
// whitespace apart, '…' and "…" quoting, a `#` starting a word begins the comment. A line this
// splitter cannot read (an unclosed quote, a pipe, a `$`) is returned with `args` empty and
// `text` naming it, so the test fails on it rather than skipping it.
std::vector<ShownCommand> ShownLabCheckCommands(const std::string& markdown);

}  // namespace labcheck::docs

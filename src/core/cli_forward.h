// The CLI11 types our headers name, declared, not defined: CLI11 2.1 is header-only and a unit
// that includes <CLI/CLI.hpp> spends about 5 s of a 2-core build compiling it (issue 24), so only
// the files that build or read a command line include it, and headers that merely pass a
// CLI::App& along include this.
#pragma once

namespace CLI {
class App;
class Option;
class ParseError;
}  // namespace CLI

// The command line speaks one language per run, the one --lang names (Russian by default): CLI11's
// own words in --help (Usage, OPTIONS, REQUIRED, group names, the help flag) and its parse errors.
// --lang is read before the command line is built, so every description can follow it.
#pragma once
#include <string>

#include "core/cli_forward.h"

#include "core/text.h"

namespace labcheck {

// The value of --lang as given ("--lang en", "--lang=en"), before CLI11 validates it; Russian
// when absent or not "en".
Lang PeekLang(int argc, char** argv);

// Call on the top-level app before adding any option or subcommand: subcommands inherit the
// formatter, the option group, the subcommand group and the help flag from their parent.
void LocalizeCli(CLI::App& app, Lang lang);
// Call once every subcommand has been added.
void FinishLocalizingCli(CLI::App& app, Lang lang);

// A parse error in the run's language, on stderr ("lab_check: ..." and where the help is); the
// help and --version go to stdout as usual. Returns the exit code CLI11 gives (0 for help).
int ReportParseError(const CLI::App& app, const CLI::ParseError& error, Lang lang);

// The Russian for one of CLI11's English error messages (the flag names stay as they are); the
// message unchanged where no pattern matches. Exposed for the tests.
std::string RussianParseError(const std::string& name, const std::string& message);

}  // namespace labcheck

// The commands a piece of advice names, found in its text and checked (issue 56): a `lab_check …`
// command is parsed by lab_check itself (`lab_check internal-parse-only …`: its real command line,
// nothing run, --only matched against the checks); any other is held to tests/sim/known_commands.json
// (the tool, its subcommand, every flag and the flag's value where the set is fixed). A tool named in
// prose ("nvidia-smi shows the mode") is no command and is not judged.
#pragma once
#include <string>
#include <vector>

namespace labcheck::sim {

struct CommandLine {
  std::string tool;                 // "nvidia-smi", "lab_check"
  std::vector<std::string> words;   // after the tool (and after sudo)
  std::string text;                 // as found, for messages
};

// Every command in `text`: a backquoted span, or from a known tool's name to where the command
// ends (";", "|", "&&", a closing bracket, a sentence's end, or the first prose word).
std::vector<CommandLine> FindCommands(const std::string& text);

// What is wrong with each command in `text`, one line each ("nvidia-smi -q -d PERFROMANCE: -d
// takes PERFORMANCE, POWER, …"); empty when every command is one the tool accepts.
std::vector<std::string> CommandProblems(const std::string& text);

}  // namespace labcheck::sim

#include "readme_commands.h"

#include <sstream>

namespace labcheck::docs {
namespace {

constexpr const char* kPrograms[] = {"build/lab_check", "scripts/setup-and-check.sh"};

bool OpensOrClosesFence(const std::string& line) {
  const size_t start = line.find_first_not_of(' ');
  return start != std::string::npos && start <= 3 && line.compare(start, 3, "```") == 0;
}

// Splits `line` as the shell would for the simple lines a page shows; false where it cannot.
bool SplitWords(const std::string& line, std::vector<std::string>& words) {
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      else word += c;
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    if (c == '#' && !in_word) break;  // a comment
    if (c == '|' || c == ';' || c == '&' || c == '$' || c == '`' || c == '<' || c == '>' || c == '\\') return false;
    in_word = true;
    if (c == '\'' || c == '"') quote = c;
    else word += c;
  }
  if (quote != 0) return false;
  if (in_word) words.push_back(word);
  return true;
}

}  // namespace

std::vector<ShownCommand> ShownLabCheckCommands(const std::string& markdown) {
  std::vector<ShownCommand> found;
  std::istringstream in(markdown);
  std::string line;
  bool in_fence = false;
  for (int number = 1; std::getline(in, line); ++number) {
    if (OpensOrClosesFence(line)) {
      in_fence = !in_fence;
      continue;
    }
    if (!in_fence) continue;
    std::vector<std::string> words;
    const bool readable = SplitWords(line, words);
    if (readable && words.empty()) continue;
    const size_t start = line.find_first_not_of(' ');
    for (const char* program : kPrograms) {
      const std::string name(program);
      if (start == std::string::npos || line.compare(start, name.size(), name) != 0) continue;
      ShownCommand command{number, line, {}};
      if (readable && words[0] == name) command.args.assign(words.begin() + 1, words.end());
      else command.text = "unreadable by the test's splitter: " + line;
      found.push_back(command);
    }
  }
  return found;
}

}  // namespace labcheck::docs

#include "command_lines.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "platform/files.h"
#include "runner/child_process.h"
#include "scenario_support.h"

namespace labcheck::sim {
namespace {

using nlohmann::json;

const json& Tools() {
  static const json tools = [] {
    const Result<std::string> text = ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/known_commands.json");
    return text.ok() ? json::parse(*text)["tools"] : json::object();
  }();
  return tools;
}

// lab_check's flags that take no value: after one of them a prose word ends the command.
const std::set<std::string>& LabCheckSwitches() {
  static const std::set<std::string> switches = {"--quick", "--skip-dist", "--json-only", "-v", "--verbose", "--version",
                                                 "--json", "--drain", "--help", "-h"};
  return switches;
}

bool Ascii(const std::string& word) {
  return std::all_of(word.begin(), word.end(), [](unsigned char c) { return c < 0x80; });
}

// A word of the surrounding sentence, not of a command: lower-case letters only (at least three),
// or any word of Russian.
bool Prose(const std::string& word) {
  if (!Ascii(word)) return true;
  static const std::set<std::string> small = {"or", "to", "if", "in", "on", "a", "an", "it", "is", "so", "as", "at", "by", "of"};
  if (small.count(word)) return true;
  return word.size() >= 3 && std::all_of(word.begin(), word.end(), [](unsigned char c) { return std::islower(c); });
}

bool KnownTool(const std::string& word) { return word == "lab_check" || Tools().contains(word); }

// Whitespace-separated words; a quoted run ('…' or "…") is one word.
std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      word += c;
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      if (word.empty()) quote = c;
      word += c;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

// A word's trailing punctuation that ends the command after it (";", ",", ")", ":", a final ".").
bool EndsCommand(std::string& word) {
  bool ends = false;
  while (!word.empty() && std::string(";,):»").find(word.back()) != std::string::npos) {
    word.pop_back();
    ends = true;
  }
  if (!word.empty() && word.back() == '.' && word.find('/') == std::string::npos) {
    word.pop_back();
    ends = true;
  }
  return ends;
}

bool Delimiter(const std::string& word) {
  return word == "|" || word == "&&" || word == "||" || word == "—" || word == "–" || word == "#" || word.front() == '(' ||
         word.front() == '<' && word.back() != '>';
}

const json* Spec(const json& tool, const std::string& subcommand) {
  if (!subcommand.empty() && tool.contains("subcommands") && tool["subcommands"].contains(subcommand))
    return &tool["subcommands"][subcommand];
  return &tool;
}

bool Listed(const json& spec, const char* key, const std::string& flag) {
  if (!spec.contains(key)) return false;
  const json& list = spec[key];
  return std::find(list.begin(), list.end(), flag) != list.end();
}

bool StopWord(const std::string& word) {
  static const std::set<std::string> stop = {"and", "or", "then", "to", "if", "with", "for", "from", "the", "after",
                                             "before", "when", "until", "instead", "again", "first", "it", "is", "in"};
  return stop.count(word) > 0 || !Ascii(word);
}

// lab_check's subcommands (`lab_check --help`); any other first word is the sentence's.
bool LabCheckSubcommand(const std::string& word) {
  static const std::set<std::string> subcommands = {"vram", "kv", "serve", "cost", "plan", "journal", "compare",
                                                    "burn", "node-check", "cluster", "dist-smoke"};
  return subcommands.count(word) > 0;
}

// Whether a word that is not a flag (nor a flag's value) still belongs to the command.
bool Belongs(const std::string& tool, const json& spec_root, const std::string& word, bool first, std::string& subcommand) {
  if (StopWord(word)) return false;
  if (tool == "lab_check") return first ? LabCheckSubcommand(word) || !Prose(word) : !Prose(word);
  if (first && spec_root.contains("subcommands") && spec_root["subcommands"].contains(word)) {
    subcommand = word;
    return true;
  }
  if (first && spec_root.value("subcommand_required", false)) return true;  // a wrong subcommand: judged
  return spec_root.value("positional", false);
}

// From `words[start]` (the word after the tool) to the command's end: the command's words.
std::vector<std::string> CommandWords(const std::string& tool, const std::vector<std::string>& words, size_t start) {
  std::vector<std::string> out;
  const json empty = json::object();
  const json& spec_root = tool == "lab_check" ? empty : Tools()[tool];
  std::string subcommand;
  bool value_next = false;
  for (size_t i = start; i < words.size(); ++i) {
    std::string word = words[i];
    if (Delimiter(word)) break;
    const bool last = EndsCommand(word);
    if (word.empty()) break;
    const bool flag = word.front() == '-' && word.size() > 1;
    if (!value_next && !flag && !Belongs(tool, spec_root, word, out.empty(), subcommand)) break;
    out.push_back(word);
    if (flag) {
      const std::string name = word.substr(0, word.find('='));
      value_next = word.find('=') == std::string::npos &&
                   (tool == "lab_check" ? LabCheckSwitches().count(name) == 0 : Listed(*Spec(spec_root, subcommand), "valued", name) ||
                                                                                Listed(spec_root, "valued", name));
    } else {
      value_next = false;
    }
    if (last) break;
  }
  return out;
}

std::vector<std::string> ToolProblems(const CommandLine& c) {
  std::vector<std::string> problems;
  const json& tool = Tools()[c.tool];
  std::string subcommand;
  size_t i = 0;
  if (tool.value("subcommand_required", false)) {
    if (c.words.empty() || !tool["subcommands"].contains(c.words[0]))
      return {c.text + ": " + c.tool + " needs one of its subcommands first"};
    subcommand = c.words[0];
    i = 1;
  } else if (!c.words.empty() && tool.contains("subcommands") && tool["subcommands"].contains(c.words[0])) {
    subcommand = c.words[0];
    i = 1;
  }
  const json& spec = *Spec(tool, subcommand);
  for (; i < c.words.size(); ++i) {
    const std::string& word = c.words[i];
    if (word.front() != '-' || word.size() == 1) {
      if (tool.value("assignments_only", false) && word.find('=') == std::string::npos)
        problems.push_back(c.text + ": " + c.tool + " takes NAME=value, not '" + word + "'");
      continue;
    }
    const size_t eq = word.find('=');
    const std::string name = word.substr(0, eq);
    const bool in_tool = Listed(tool, "switches", name) || Listed(tool, "valued", name);
    if (!Listed(spec, "switches", name) && !Listed(spec, "valued", name) && !in_tool) {
      problems.push_back(c.text + ": " + c.tool + (subcommand.empty() ? "" : " " + subcommand) + " has no flag " + name);
      continue;
    }
    if (!Listed(spec, "valued", name) && !Listed(tool, "valued", name)) continue;
    std::string value = eq != std::string::npos ? word.substr(eq + 1) : (i + 1 < c.words.size() ? c.words[++i] : "");
    if (value.empty()) {
      problems.push_back(c.text + ": " + name + " needs a value");
      continue;
    }
    const json& values = spec.contains("values") ? spec["values"] : tool.value("values", json::object());
    if (values.contains(name) && std::find(values[name].begin(), values[name].end(), value) == values[name].end())
      problems.push_back(c.text + ": " + name + " takes " + values[name].dump() + ", not " + value);
  }
  return problems;
}

std::string LabCheckProblem(const CommandLine& c) {
  ChildSpec spec;
  spec.argv = {LAB_CHECK_BINARY, "internal-parse-only", "--lang", "en"};
  spec.argv.insert(spec.argv.end(), c.words.begin(), c.words.end());
  spec.timeout_s = 30;
  const ChildOutcome out = RunChild(spec, CancelToken::Never());
  if (out.exited_ok()) return "";
  return c.text + ": lab_check refuses it: " + out.err.substr(0, out.err.find('\n'));
}

// The commands of one span of text (a backquoted one is a command whatever its words).
void Scan(const std::string& text, bool quoted, std::vector<CommandLine>& out) {
  const std::vector<std::string> words = Words(text);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    while (!word.empty() && (word.front() == '(' || word.front() == '`')) word.erase(word.begin());
    if (!KnownTool(word)) continue;
    CommandLine c;
    c.tool = word;
    c.words = CommandWords(word, words, i + 1);
    const bool after_sudo = i > 0 && words[i - 1] == "sudo";
    if (c.words.empty() && !quoted && !after_sudo && word != "lab_check") continue;  // the tool named in prose
    c.text = word;
    for (const std::string& w : c.words) c.text += " " + w;
    i += c.words.size();
    out.push_back(std::move(c));
  }
}

}  // namespace

std::vector<CommandLine> FindCommands(const std::string& text) {
  std::vector<CommandLine> out;
  std::string prose;
  size_t at = 0;
  while (at < text.size()) {
    const size_t open = text.find('`', at);
    if (open == std::string::npos) {
      prose += text.substr(at);
      break;
    }
    const size_t close = text.find('`', open + 1);
    if (close == std::string::npos) {
      prose += text.substr(at);
      break;
    }
    prose += text.substr(at, open - at) + " ; ";
    Scan(text.substr(open + 1, close - open - 1), true, out);
    at = close + 1;
  }
  Scan(prose, false, out);
  return out;
}

std::vector<std::string> CommandProblems(const std::string& text) {
  std::vector<std::string> problems;
  for (const CommandLine& c : FindCommands(text)) {
    if (c.tool == "lab_check") {
      if (std::string p = LabCheckProblem(c); !p.empty()) problems.push_back(p);
      continue;
    }
    for (std::string& p : ToolProblems(c)) problems.push_back(std::move(p));
  }
  return problems;
}

}  // namespace labcheck::sim

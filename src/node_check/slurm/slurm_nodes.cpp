// `scontrol -o show nodes` prints "Key=Value" pairs separated by spaces, but some values hold
// spaces themselves (OS=Linux 6.1.0-28-amd64 #1 SMP …, and the Reason). Read from Slurm 22.05.8's
// output (captured in tests/node_check/slurm_nodes_test.cpp): the Reason comes after the fields we
// need and runs to " [user@YYYY-MM-DDTHH:MM:SS]", which Slurm appends when it knows who set it and
// when (src/api/node_info.c); without that bracket the reason runs to the end of the line.
#include "node_check/slurm/slurm_nodes.h"

#include <regex>
#include <sstream>

namespace labcheck::node_check {

namespace {

// The state's words: "DOWN*+DRAIN" -> {"DOWN", "DRAIN"}. Slurm marks a node that does not respond
// with '*' and other conditions with one trailing symbol ('~' powered off, '#' powering up, '%'
// powering down, '$' maintenance, '@' reboot pending, '!' pending power down, '^' rebooting).
std::vector<std::string> StateWords(const std::string& state) {
  std::vector<std::string> words;
  std::stringstream in(state);
  std::string word;
  while (std::getline(in, word, '+')) {
    while (!word.empty() && std::string("*~#%$@!^-").find(word.back()) != std::string::npos) word.pop_back();
    if (!word.empty()) words.push_back(word);
  }
  return words;
}

bool HasWord(const std::string& state, const std::string& wanted) {
  for (const std::string& w : StateWords(state))
    if (w == wanted) return true;
  return false;
}

// The value of " Key=" in the fields before the reason (values with no spaces: name, state, partitions).
std::string Field(const std::string& fields, const std::string& key) {
  const std::string needle = key + "=";
  size_t at = 0;
  while ((at = fields.find(needle, at)) != std::string::npos) {
    if (at == 0 || fields[at - 1] == ' ') {
      const size_t start = at + needle.size();
      return fields.substr(start, fields.find(' ', start) - start);
    }
    at += needle.size();
  }
  return "";
}

std::string ReasonOf(const std::string& rest) {
  static const std::regex stamped(R"(^(.*?) \[[^\]\s@]+@\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\](\s|$))");
  std::smatch m;
  if (std::regex_search(rest, m, stamped)) return m[1].str();
  std::string reason = rest;
  while (!reason.empty() && (reason.back() == ' ' || reason.back() == '\r')) reason.pop_back();
  return reason;
}

SlurmNode ParseLine(const std::string& line) {
  size_t reason_at = line.find(" Reason=");
  const std::string fields = line.substr(0, reason_at);
  SlurmNode node;
  node.name = Field(fields, "NodeName");
  node.state = Field(fields, "State");
  std::stringstream parts(Field(fields, "Partitions"));
  for (std::string p; std::getline(parts, p, ',');)
    if (!p.empty()) node.partitions.push_back(p);
  if (reason_at != std::string::npos) node.reason = ReasonOf(line.substr(reason_at + 8));
  return node;
}

}  // namespace

bool SlurmNode::Draining() const { return HasWord(state, "DRAIN") || HasWord(state, "DRAINED") || HasWord(state, "DRAINING"); }

bool SlurmNode::OutOfService() const { return Draining() || HasWord(state, "FAIL") || HasWord(state, "DOWN"); }

bool SlurmNode::DrainedByLabCheck() const { return OutOfService() && reason.rfind(kReasonPrefix, 0) == 0; }

std::vector<SlurmNode> ParseScontrolNodes(const std::string& text) {
  std::vector<SlurmNode> nodes;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("NodeName=", 0) != 0) continue;
    SlurmNode node = ParseLine(line);
    if (!node.name.empty()) nodes.push_back(std::move(node));
  }
  return nodes;
}

std::optional<SlurmNode> FindNode(const std::vector<SlurmNode>& nodes, const std::string& name) {
  for (const SlurmNode& n : nodes)
    if (n.name == name) return n;
  return std::nullopt;
}

}  // namespace labcheck::node_check

#include "cluster/host_list.h"

#include <fmt/format.h>

namespace labcheck::cluster {

namespace {

// Splits at commas that are not inside brackets.
std::vector<std::string> SplitTopLevel(const std::string& list) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "01-04,07" → 01 02 03 04 07, keeping the width of each range's first number.
Status ExpandRanges(const std::string& ranges, std::vector<std::string>* out, size_t max_hosts) {
  for (const std::string& item : SplitTopLevel(ranges)) {
    size_t dash = item.find('-');
    std::string first = item.substr(0, dash);
    std::string last = dash == std::string::npos ? first : item.substr(dash + 1);
    if (!AllDigits(first) || !AllDigits(last) || first.size() > 9 || last.size() > 9)
      return Status::Error("\"" + item + "\" is not a number or a range like 01-04");
    long from = std::stol(first), to = std::stol(last);
    if (to < from) return Status::Error("range \"" + item + "\" runs backwards");
    if (static_cast<size_t>(to - from) + out->size() >= max_hosts) return Status::Error("range \"" + item + "\" is too long");
    for (long n = from; n <= to; ++n) out->push_back(fmt::format("{:0{}d}", n, first.size()));
  }
  return Status::Ok();
}

// One host expression (no top-level commas), possibly with several bracket groups.
Status ExpandOne(const std::string& expr, std::vector<std::string>* out, size_t max_hosts) {
  size_t open = expr.find('[');
  if (open == std::string::npos) {
    if (expr.find(']') != std::string::npos) return Status::Error("\"" + expr + "\" has a ']' without '['");
    out->push_back(expr);
    return Status::Ok();
  }
  size_t close = expr.find(']', open);
  if (close == std::string::npos) return Status::Error("\"" + expr + "\" has a '[' without ']'");
  std::vector<std::string> numbers;
  Status s = ExpandRanges(expr.substr(open + 1, close - open - 1), &numbers, max_hosts);
  if (!s.ok()) return s;
  const std::string prefix = expr.substr(0, open), rest = expr.substr(close + 1);
  std::vector<std::string> tails;
  s = ExpandOne(rest, &tails, max_hosts);
  if (!s.ok()) return s;
  if (numbers.size() * tails.size() + out->size() > max_hosts) return Status::Error("\"" + expr + "\" names too many hosts");
  for (const std::string& n : numbers)
    for (const std::string& t : tails) out->push_back(prefix + n + t);
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> ExpandHostList(const std::string& list, size_t max_hosts) {
  std::vector<std::string> hosts;
  if (list.empty()) return Status::Error("the host list is empty");
  for (const std::string& part : SplitTopLevel(list)) {
    if (part.empty()) return Status::Error("host list \"" + list + "\" has an empty entry");
    Status s = ExpandOne(part, &hosts, max_hosts);
    if (!s.ok()) return Status::Error("host list \"" + list + "\": " + s.message());
  }
  return hosts;
}

Result<std::string> FirstHost(const std::string& list) {
  std::vector<std::string> parts = SplitTopLevel(list);
  if (list.empty() || parts.front().empty()) return Status::Error("the host list is empty");
  Result<std::vector<std::string>> first = ExpandHostList(parts.front());
  if (!first.ok()) return first.status();
  return first->front();
}

}  // namespace labcheck::cluster

#include "compat/version_spec.h"

#include <cctype>
#include <sstream>

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck::compat {

namespace {

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::optional<bool> Clause(const Version& v, const std::string& clause) {
  static const std::regex kClause(R"(^(~=|==|!=|>=|<=|>|<|===)\s*([0-9][0-9A-Za-z.+!*-]*)$)");
  std::smatch m;
  const std::string c = Trim(clause);
  if (c.empty()) return true;
  if (!std::regex_match(c, m, kClause)) return std::nullopt;
  const std::string op = m[1].str();
  std::string target = m[2].str();
  const bool wildcard = target.size() > 2 && target.compare(target.size() - 2, 2, ".*") == 0;
  if (wildcard) target = target.substr(0, target.size() - 2);
  std::optional<Version> t = Version::Parse(target);
  if (!t) return std::nullopt;
  if (wildcard && (op == "==" || op == "!=")) {
    bool prefix = v.release.size() >= t->release.size();
    for (size_t i = 0; prefix && i < t->release.size(); ++i) prefix = v.release[i] == t->release[i];
    return op == "==" ? prefix : !prefix;
  }
  const int cmp = Compare(v, *t);
  if (op == "==" || op == "===") return cmp == 0;
  if (op == "!=") return cmp != 0;
  if (op == ">=") return cmp >= 0;
  if (op == "<=") return cmp <= 0;
  if (op == ">") return cmp > 0;
  if (op == "<") return cmp < 0;
  // ~=X.Y.Z: >= X.Y.Z and == X.Y.*
  if (t->release.size() < 2) return std::nullopt;
  if (cmp < 0) return false;
  for (size_t i = 0; i + 1 < t->release.size(); ++i)
    if (i >= v.release.size() || v.release[i] != t->release[i]) return false;
  return true;
}

}  // namespace

std::optional<Version> Version::Parse(const std::string& raw) {
  std::string text = Trim(raw);
  if (!text.empty() && (text[0] == 'v' || text[0] == 'V')) text = text.substr(1);
  const size_t plus = text.find('+');
  if (plus != std::string::npos) text = text.substr(0, plus);
  Version v;
  size_t i = 0;
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) break;
    size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    v.release.push_back(std::stoi(text.substr(i, j - i)));
    i = j;
    if (i < text.size() && text[i] == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) ++i;
    else break;
  }
  if (v.release.empty()) return std::nullopt;
  const std::string rest = text.substr(i);
  v.pre = rest.find("a") != std::string::npos || rest.find("b") != std::string::npos ||
          rest.find("rc") != std::string::npos || rest.find("dev") != std::string::npos;
  return v;
}

int Compare(const Version& a, const Version& b) {
  const size_t n = std::max(a.release.size(), b.release.size());
  for (size_t i = 0; i < n; ++i) {
    const int x = i < a.release.size() ? a.release[i] : 0, y = i < b.release.size() ? b.release[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  if (a.pre != b.pre) return a.pre ? -1 : 1;
  return 0;
}

std::optional<bool> Satisfies(const std::string& version, const std::string& specifier) {
  std::optional<Version> v = Version::Parse(version);
  if (!v) return std::nullopt;
  std::stringstream in(specifier);
  std::string clause;
  bool all = true;
  while (std::getline(in, clause, ',')) {
    std::optional<bool> ok = Clause(*v, clause);
    if (!ok) return std::nullopt;
    all = all && *ok;
  }
  return all;
}

std::optional<Requirement> ParseRequirement(const std::string& text) {
  static const std::regex kRequirement(R"(^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*\(?\s*([^;)]*)\)?\s*(;.*)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, kRequirement)) return std::nullopt;
  Requirement r;
  for (char c : m[1].str()) r.name += (c == '_' || c == '.') ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char c : m[3].str())
    if (c != ' ') r.specifier += c;
  return r;
}

std::optional<int> CudaNumber(const std::string& text) {
  std::optional<Version> v = Version::Parse(text);
  if (!v || v->release.size() < 2) return std::nullopt;
  return v->release[0] * 10 + v->release[1];
}

}  // namespace labcheck::compat

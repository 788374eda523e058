#include "runner/check_selection.h"

#include <fnmatch.h>

#include <set>

namespace labcheck {
namespace {

bool Matches(const std::string& pattern, const Check& check) { return fnmatch(pattern.c_str(), check.id.c_str(), 0) == 0; }

}  // namespace

std::string UnmatchedPattern(const Registry& all, const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    bool matched = false;
    for (const Check& check : all.checks()) matched = matched || Matches(pattern, check);
    if (!matched) return pattern;
  }
  return "";
}

Registry SelectChecks(const Registry& all, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return all;
  std::set<std::string> chosen;
  for (const Check& check : all.checks())
    for (const std::string& pattern : patterns)
      if (Matches(pattern, check)) chosen.insert(check.id);
  // What a check reads is registered before it, so one pass from the end adds every read and
  // the reads of reads.
  for (auto it = all.checks().rbegin(); it != all.checks().rend(); ++it)
    if (chosen.count(it->id) > 0) chosen.insert(it->reads.begin(), it->reads.end());
  Registry selected;
  for (const Check& check : all.checks())
    if (chosen.count(check.id) > 0) selected.Add(check);
  return selected;
}

std::string CheckIds(const Registry& all) {
  std::string ids;
  for (const Check& check : all.checks()) ids += (ids.empty() ? "" : ", ") + check.id;
  return ids;
}

}  // namespace labcheck

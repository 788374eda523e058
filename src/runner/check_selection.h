// --only: a subset of the registry, by check id or shell pattern ("gpu.health", "gpu.*"), with
// the checks the chosen ones read (Check::reads) added, in registry order. The caller refuses a
// pattern that matches no check (UnmatchedPattern), so a typo never yields an empty report.
#pragma once
#include <string>
#include <vector>

#include "runner/check.h"

namespace labcheck {

// The first of `patterns` that matches no check id of `all`; empty when each matches one.
std::string UnmatchedPattern(const Registry& all, const std::vector<std::string>& patterns);
// The checks `patterns` match, plus what they read; empty `patterns`: the whole registry.
Registry SelectChecks(const Registry& all, const std::vector<std::string>& patterns);
// "env.system, env.python, …": the ids, for a message that lists them.
std::string CheckIds(const Registry& all);

}  // namespace labcheck

// Runs the registry's checks in order: honours --quick and --skip-dist, turns an exception into a
// FAIL, times every check, reports progress, and after an interrupt marks the rest NOT RUN.
#pragma once
#include <vector>

#include "core/check_result.h"
#include "runner/check.h"
#include "runner/progress.h"

namespace labcheck {

// Runs every check; never throws. The returned list has one result per registered check.
std::vector<CheckResult> RunChecks(const Registry& registry, const RunOptions& options,
                                   const CancelToken& cancel, ProgressSink& progress);

}  // namespace labcheck

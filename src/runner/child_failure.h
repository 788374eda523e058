// How a child process that did not deliver becomes a check's FAIL: the reason in words (hung and
// killed at its timeout, crashed with a signal, exited with an error), the output tail as error.
#pragma once
#include <string>

#include "core/check_result.h"
#include "runner/child_process.h"

namespace labcheck {

Text DescribeChildFailure(const ChildOutcome& outcome);
CheckResult ChildFailure(std::string id, const ChildOutcome& outcome, Text hint = {});

}  // namespace labcheck

// The result of a benchmark stopped (Ctrl-C) before it timed anything: NOT RUN, no measurements.
#pragma once
#include <string>

#include "core/check_result.h"

namespace labcheck::cpu_bench {

inline CheckResult Interrupted(std::string id) {
  CheckResult result;
  result.id = std::move(id);
  result.outcome = Outcome::NotRun;
  result.reason = T("прервано до первого замера", "interrupted before the first measurement");
  return result;
}

}  // namespace labcheck::cpu_bench

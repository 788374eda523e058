// What running a smoke test's probe produced: the test's result object as the probe reported it,
// or, when the process ended without one, why (crashed, hung, could not start, interrupted).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace labcheck::smoke {

struct TestOutcome {
  std::optional<nlohmann::json> result;  // {"status": "ran" | "skip" | "error" | "defer", ...}
  Text lost_reason;                      // when there is no result: why, for the FAIL's reason
  std::string lost_error;                // ... and what the process printed last
  bool cancelled = false;                // the user interrupted the run

  static TestOutcome Of(nlohmann::json result) {
    TestOutcome o;
    o.result = std::move(result);
    return o;
  }
  static TestOutcome Lost(Text reason, std::string error, bool cancelled = false) {
    TestOutcome o;
    o.lost_reason = std::move(reason);
    o.lost_error = std::move(error);
    o.cancelled = cancelled;
    return o;
  }
  // The probe's "status" field, or "" when there is none.
  std::string status() const {
    if (!result || !result->contains("status") || !(*result)["status"].is_string()) return {};
    return (*result)["status"].get<std::string>();
  }
};

}  // namespace labcheck::smoke

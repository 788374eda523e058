#include "core/check_result.h"

namespace labcheck {

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::Pass: return "PASS";
    case Outcome::Warn: return "WARN";
    case Outcome::Fail: return "FAIL";
    case Outcome::Skip: return "SKIP";
    case Outcome::NotRun: return "NOT RUN";
  }
  return "?";
}

std::optional<Outcome> OutcomeFromName(const std::string& name) {
  for (Outcome o : {Outcome::Pass, Outcome::Warn, Outcome::Fail, Outcome::Skip, Outcome::NotRun}) {
    if (name == OutcomeName(o)) return o;
  }
  return std::nullopt;
}

const Measurement* CheckResult::Find(const std::string& key) const {
  for (const auto& m : measurements) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

CheckResult Skipped(std::string id, Text reason, Text hint) {
  CheckResult r;
  r.id = std::move(id);
  r.outcome = Outcome::Skip;
  r.reason = std::move(reason);
  r.hint = std::move(hint);
  return r;
}

CheckResult Failed(std::string id, Text reason, Text hint, std::string error) {
  CheckResult r;
  r.id = std::move(id);
  r.outcome = Outcome::Fail;
  r.reason = std::move(reason);
  r.hint = std::move(hint);
  r.error = std::move(error);
  return r;
}

}  // namespace labcheck

#include "runner/check.h"

namespace labcheck {

const CheckResult* CheckContext::Earlier(const std::string& id) const {
  for (const auto& r : earlier_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

double CheckContext::budget_s() const { return check_.budget_s * options_.timeout_scale; }

}  // namespace labcheck

#include "runner/check.h"

#include <algorithm>
#include <stdexcept>

namespace labcheck {

const CheckResult* CheckContext::Earlier(const std::string& id) const {
  // Its own id is not: a check has not run when it asks, and a helper that asks from every member
  // of a family (the GPU checks' inventory lookup) belongs only to the members after the first.
  if (std::find(check_.reads.begin(), check_.reads.end(), id) == check_.reads.end())
    throw std::logic_error(check_.id + " reads " + id + " without naming it in Check::reads");
  for (const auto& r : earlier_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

double CheckContext::budget_s() const { return check_.budget_s * options_.timeout_scale; }

}  // namespace labcheck

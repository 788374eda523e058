#include "runner/check.h"

#include <algorithm>
#include <stdexcept>

namespace labcheck {

const CheckResult* CheckContext::Earlier(const std::string& id) const {
  // Its own id is allowed (nullptr: it has not run yet): helpers shared by a family of checks,
  // such as the GPU checks' inventory lookup, ask for it from every member, the first included.
  if (id != check_.id && std::find(check_.reads.begin(), check_.reads.end(), id) == check_.reads.end())
    throw std::logic_error(check_.id + " reads " + id + " without naming it in Check::reads");
  for (const auto& r : earlier_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

double CheckContext::budget_s() const { return check_.budget_s * options_.timeout_scale; }

}  // namespace labcheck

#include "app/all_checks.h"

#include "gpu/gpu_checks.h"

namespace labcheck {

Registry AllChecks() {
  Registry registry;
  RegisterGpuChecks(registry);
  return registry;
}

void AddAnalysis(Report& report) { (void)report; }

}  // namespace labcheck

#include "app/all_checks.h"

#include "cpu_bench/cpu_checks.h"
#include "env/env_checks.h"

namespace labcheck {

Registry AllChecks() {
  Registry registry;
  RegisterEnvironmentChecks(registry);
  RegisterCpuChecks(registry);
  return registry;
}

void AddAnalysis(Report& report) { (void)report; }

}  // namespace labcheck

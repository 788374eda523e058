#include "app/all_checks.h"

#include "cpu_bench/cpu_checks.h"
#include "env/env_checks.h"
#include "expect/expectations.h"
#include "gpu/gpu_checks.h"
#include "smoke/smoke_checks.h"

namespace labcheck {

Registry AllChecks() {
  Registry registry;
  RegisterEnvironmentChecks(registry);
  RegisterCpuChecks(registry);
  RegisterGpuChecks(registry);
  RegisterSmokeChecks(registry);
  return registry;
}

void AddAnalysis(Report& report) { expect::AddExpectationSections(report); }

}  // namespace labcheck

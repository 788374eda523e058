#include "app/all_checks.h"

#include "compat/compat_check.h"
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
  RegisterCompatChecks(registry);  // after gpu.inventory: it reads the driver and the cards from it
  RegisterSmokeChecks(registry);
  return registry;
}

void AddAnalysis(Report& report) { expect::AddExpectationSections(report); }

}  // namespace labcheck

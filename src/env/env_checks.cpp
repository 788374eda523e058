#include "env/env_checks.h"

#include "env/python_check.h"
#include "env/system_check.h"
#include "env/system_facts.h"

namespace labcheck {

void RegisterEnvironmentChecks(Registry& registry) {
  registry.Add(Check{
      .id = "env.system",
      .section = "environment",
      .title = T("Система", "System"),
      .quick = QuickMode::Full,
      .budget_s = 10,  // only file reads and statvfs; a hung network mount is the slow case
      .run = [](CheckContext& ctx) {
        ctx.Progress(-1, "/proc, /sys, statvfs");
        return env::AssessSystem(env::CollectSystemFacts());
      },
  });
  registry.Add(Check{
      .id = "env.python",
      .section = "environment",
      .title = T("Python и пакеты курса", "Python and course packages"),
      .quick = QuickMode::Full,
      // The packages probe: one pass over installed metadata, well under a second on a local
      // disk, seconds on a cold network home. The interpreter's start and its `import torch` have
      // their own budgets (probes/interpreter.h).
      .budget_s = 45,
      .run = env::RunPythonCheck,
  });
}

}  // namespace labcheck

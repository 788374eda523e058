// env.compat: runs the env_compat.py probe under the run's interpreter (probes/interpreter.h: a
// SKIP at once when it is known not to answer), reads gpu.inventory's result for the driver side,
// and judges (compat_rules.h). Registered after the GPU inventory.
#pragma once
#include "runner/check.h"

namespace labcheck {

void RegisterCompatChecks(Registry& registry);

namespace compat {
CheckResult RunCompatCheck(CheckContext& context);
}

}  // namespace labcheck

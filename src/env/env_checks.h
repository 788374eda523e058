// The environment section: env.system (OS, CPU, RAM, disks, /dev/shm) and env.python (the
// interpreter and the course packages). The app registers them first: later checks read them.
#pragma once
#include "runner/check.h"

namespace labcheck {

void RegisterEnvironmentChecks(Registry& registry);

}  // namespace labcheck

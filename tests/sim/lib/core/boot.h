// The simulated machine's boot, for what a real driver does late: an NVSwitch board's fabric
// manager registers the GPUs for a while after the driver loads, and cuInit says 802 until it has
// (cuda/init_error_until_ms). The boot is when the parent of this process started: lab_check's
// child jobs are started by the lab_check the user ran, so every child of one run, retries
// included, sees the same clock, and every run starts it afresh.
#pragma once

#include "core/profile.h"

namespace nvsim {

// Milliseconds since the parent process started (/proc/PPID/stat's starttime against
// /proc/uptime; 10 ms ticks). 0 when /proc cannot say.
double MsSinceSimulatedBoot();

// Whether cuda/init_error still holds: always without cuda/init_error_until_ms, else until that
// many ms after the simulated boot.
bool InitErrorHolds(const Machine& m);

}  // namespace nvsim

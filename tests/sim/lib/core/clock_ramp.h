// Clocks that come up under load (GPU Boost leaving an idle power state): a card whose profile
// has "clocks_mhz/ramp_ms" starts a matmul at "clocks_mhz/ramp_start_fraction" [0.6] of its rate
// and reaches the full rate after ramp_ms of continuous modelled matmul time, linearly. A gap of
// more than "clocks_mhz/ramp_idle_reset_ms" [1000] of modelled time between two matmuls on the card
// starts the ramp over. So a benchmark that counts warm-up calls instead of warming up for a time
// measures a card that is still clocking up, as a real card would show it.
// Without "clocks_mhz/ramp_ms" the card is at its full rate at once (the old behaviour).
#pragma once

#include "core/profile.h"

namespace nvsim {

// Modelled seconds of an operation that needs `work_s` seconds at the full rate and starts at
// virtual time `start_s` on GPU `g`; records the busy time for the next call. Thread-safe.
double RampedSeconds(const Gpu& g, double start_s, double work_s);

}  // namespace nvsim

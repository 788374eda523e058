// Where a simulated run's time goes, for scripts/time-sim-run.sh: with LABCHECK_SIM_STATS set to
// a folder, every process that loads the simulator keeps a file PID.json there with the modelled
// time it enqueued per kind of work, the real time that work was paced to (modelled × the
// profile's pacing/…, summed over streams, so work on four GPUs at once counts four times), and
// the real time its threads slept waiting for paced work. Rewritten in place after each change,
// since a child job leaves with _exit and runs no destructor. Unset: nothing is kept or written.
#pragma once
#include "core/timeline.h"

namespace nvsim {

// An operation of `modelled_s` enqueued, paced to `paced_s` of real time. TimeLock held.
void CountWork(Work kind, double modelled_s, double paced_s);
// A thread slept `seconds` in Wait() for paced work to end. TimeLock not held.
void CountWaited(double seconds);

}  // namespace nvsim

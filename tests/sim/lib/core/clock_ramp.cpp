#include "core/clock_ramp.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace nvsim {

namespace {

struct RampState {
  double busy_s = 0;          // continuous matmul time since the card was last idle long enough
  double last_end_s = -1e30;  // virtual end of its last matmul
};

std::mutex& RampLock() {
  static std::mutex mutex;
  return mutex;
}

std::map<int, RampState>& States() {
  static auto* states = new std::map<int, RampState>();
  return *states;
}

}  // namespace

double RampedSeconds(const Gpu& g, double start_s, double work_s) {
  const double ramp_s = g.Number("clocks_mhz/ramp_ms") / 1000;
  if (ramp_s <= 0 || work_s <= 0) return work_s;
  const double start_fraction = std::clamp(g.Number("clocks_mhz/ramp_start_fraction"), 0.05, 1.0);
  const double idle_reset_s = g.Number("clocks_mhz/ramp_idle_reset_ms") / 1000;

  std::lock_guard<std::mutex> lock(RampLock());
  RampState& state = States()[g.index];
  if (start_s - state.last_end_s > idle_reset_s) state.busy_s = 0;  // idle long enough: clocks went down
  // The rate rises with busy time, so the operation is integrated in small steps while it lasts
  // into the ramp; the rest runs at the full rate.
  constexpr double kStep_s = 2e-4;
  double left_work_s = work_s, elapsed_s = 0;
  while (left_work_s > 1e-15 && state.busy_s < ramp_s) {
    const double rate = start_fraction + (1 - start_fraction) * state.busy_s / ramp_s;
    const double dt = std::min({kStep_s, left_work_s / rate, ramp_s - state.busy_s});
    left_work_s -= rate * dt;
    elapsed_s += dt;
    state.busy_s += dt;
  }
  if (left_work_s > 1e-15) {
    elapsed_s += left_work_s;
    state.busy_s += left_work_s;
  }
  state.last_end_s = std::max(state.last_end_s, start_s + elapsed_s);
  return elapsed_s;
}

}  // namespace nvsim

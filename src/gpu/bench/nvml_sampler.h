// Watches a GPU through NVML while a measurement runs, from a thread of its own: the clock event
// reasons seen (power cap, thermal, hardware slowdown: why a matmul is "far below the
// reference"), the lowest SM clock, the highest power draw and the PCIe link in use under load
// (links train down when idle, so the link read before a copy says little).
//
// Only samples taken while the measured work is in flight count (SetBusy brackets it; the caller
// also calls SampleNow once the timed work is queued, so a series shorter than the period still
// gets one). The thread's first sample comes one period after the start, never at the idle start.
// A sample taken at idle is counted apart and says nothing: no verdict comes from it.
//
// Clock event reasons are tallied per bit: a reason is reported only when it holds over the
// series (clock_event_hold.h), never from one reading that caught a P-state change.
#pragma once
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpu/bench/clock_event_hold.h"
#include "gpu/nvidia/nvml_library.h"

namespace labcheck::gpu {

struct NvmlSamples {
  ReasonTally reasons;  // clock event reasons of every sample under load, per bit
  std::optional<unsigned> min_sm_clock_mhz;
  std::optional<double> max_power_w;
  std::optional<unsigned> pcie_gen_under_load;    // the highest seen under load
  std::optional<unsigned> pcie_width_under_load;
  int count = 0;       // samples taken while the work ran
  int idle_count = 0;  // samples taken outside it, not used for any figure
  // The reasons that held (clock_event_hold.h): what a verdict may name.
  std::vector<std::string> ReasonNames() const { return ClockEventReasonNames(reasons.Held()); }
  // Read in some samples but not held: shown, never judged.
  std::vector<std::string> TransientReasonNames() const {
    return ClockEventReasonNames(reasons.Seen() & ~reasons.Held());
  }
};

class NvmlSampler {
 public:
  // `nvml` or `device` may be null: then it samples nothing and Stop() returns empty samples.
  NvmlSampler(const Nvml* nvml, nvml::nvmlDevice_t device, int period_ms = 20);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  // Whether the measured work is running now (set after the first of it is queued, cleared once
  // it is known to be done).
  void SetBusy(bool busy) { busy_.store(busy); }
  // One sample now, on the caller's thread: call it while queued work runs.
  void SampleNow();
  NvmlSamples Stop();

 private:
  void SampleOnce();
  const Nvml* nvml_;
  nvml::nvmlDevice_t device_;
  int period_ms_;
  std::atomic<bool> busy_{false};
  bool stop_ = false;  // guarded by mutex_
  std::mutex mutex_;
  std::condition_variable wake_;
  NvmlSamples samples_;
  std::thread thread_;
};

}  // namespace labcheck::gpu

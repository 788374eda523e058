// When a clock-event reason read from NVML counts. nvml.h says of the HW-slowdown bit that it "may
// be also reported during PState or clock change": one reading can catch a transition that costs
// nothing, and a run that reports "hw_slowdown" from it sends the user after a cooling or power
// fault that is not there. A reason holds when it is set in at least kReasonHoldMinSamples
// readings and in at least kReasonHoldShare of them:
// - two, because a single reading cannot tell a transition from a limit;
// - a quarter, because the figures are medians of timed series: a limit that lowers a median is
//   set for a good part of the series (a power cap or heat lasts seconds), while a P-state or
//   clock change lasts about one sampling period (20 ms), a few per cent of a series' readings.
// Every reader of the reasons (the NVML sampler, the burn verdicts, gpu.health's idle reading)
// uses this rule, so a blip is ignored everywhere alike.
#pragma once
#include <array>

namespace labcheck::gpu {

inline constexpr int kReasonHoldMinSamples = 2;
inline constexpr double kReasonHoldShare = 0.25;

// Whether a reason set in `with_reason` of `samples` readings holds.
bool ReasonHolds(int with_reason, int samples);

// Per-bit counts of the reasons read in a series of NVML readings.
struct ReasonTally {
  std::array<int, 64> with{};  // [bit]: readings with that bit set
  int samples = 0;

  void Add(unsigned long long reasons);
  unsigned long long Held() const;  // the bits that hold (ReasonHolds)
  unsigned long long Seen() const;  // every bit read at least once
};

}  // namespace labcheck::gpu

#include "gpu/bench/clock_event_hold.h"

namespace labcheck::gpu {

bool ReasonHolds(int with_reason, int samples) {
  return samples > 0 && with_reason >= kReasonHoldMinSamples && with_reason >= kReasonHoldShare * samples;
}

void ReasonTally::Add(unsigned long long reasons) {
  ++samples;
  for (int bit = 0; bit < 64; ++bit)
    if ((reasons >> bit) & 1ull) ++with[bit];
}

unsigned long long ReasonTally::Held() const {
  unsigned long long held = 0;
  for (int bit = 0; bit < 64; ++bit)
    if (ReasonHolds(with[bit], samples)) held |= 1ull << bit;
  return held;
}

unsigned long long ReasonTally::Seen() const {
  unsigned long long seen = 0;
  for (int bit = 0; bit < 64; ++bit)
    if (with[bit] > 0) seen |= 1ull << bit;
  return seen;
}

}  // namespace labcheck::gpu

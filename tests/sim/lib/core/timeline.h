// Modelled time. Every stream has a virtual clock: an operation starts when both the stream and
// the host have reached it, and ends its modelled duration later (bytes / bandwidth or
// flops / rate from the profile, plus a latency). Events stamp the virtual clock, so
// cuEventElapsedTime returns the profile's figures however loaded the CI machine is.
//
// The host also waits in real time, a fraction ("pacing" in the profile) of the modelled time, so
// that work is visibly in progress: cuStreamQuery says NOT_READY, the NVML sampler sees the card
// under load, the all-reduce watchdog sees a hang as a hang. Synchronising joins the host's
// virtual clock with the stream's.
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>

namespace nvsim {

using RealClock = std::chrono::steady_clock;

enum class Work { Copy, Matmul, Collective, Memtest };

struct Stream {
  int device = -1;       // profile index
  double virtual_s = 0;  // when the last enqueued operation ends
  RealClock::time_point real_done{};
  bool hung = false;     // an operation that never ends
  bool legacy = false;   // the device's legacy default stream (the null handle)
  bool blocking = false; // created without CU_STREAM_NON_BLOCKING: its work waits for the legacy stream's
};

struct Event {
  int device = -1;  // the stream's, once recorded
  double virtual_s = 0;
  RealClock::time_point real_done{};
  bool recorded = false;
  bool hung = false;
  int legacy_device = -1;  // recorded on that device's legacy stream
};

// The one lock for stream and event state.
std::mutex& TimeLock();

// Enqueues an operation of `seconds` modelled time on `stream` (TimeLock not held by the
// caller); returns its virtual start. `real_started` is when the host began the call, so real
// work already done (a memcpy) counts towards the pacing.
double Enqueue(Stream& stream, double seconds, Work kind, RealClock::time_point real_started);
// The virtual time at which an operation enqueued now on `stream` from this thread would start
// (for a duration that depends on when it starts: core/clock_ramp.h). TimeLock not held.
double NextStart(const Stream& stream);
// Starts operations that must begin together (one collective over several streams); every
// stream ends at the same virtual time. Caller holds TimeLock.
void EnqueueTogetherLocked(Stream* const* streams, int count, double seconds, Work kind, bool hang);

void Record(Event& event, Stream& stream);
// Work about to be queued on `stream` is ordered after the legacy stream's when `stream` is the
// legacy stream or a blocking one: the pageable copies queued there land first
// (core/device_memory.h). TimeLock not held by the caller.
void OrderAfterLegacy(const Stream& stream);
bool Done(const Stream& stream);  // TimeLock not held
bool Done(const Event& event);
// Block until done (forever when hung), then advance the host's virtual clock. Waiting for the
// legacy stream, or seeing it done, also lands the copies it queued.
void Wait(const Stream& stream);
void Wait(const Event& event);

// Deterministic noise of ±profile "noise_fraction" (default 0.5 %) for the next operation.
double Noise();

// The card counts as "under load" while work is in progress and for "pacing/load_linger_ms"
// after (a real GPU keeps its clocks and PCIe link up for a moment after work ends).
bool UnderLoad(int device);
void MarkBusy(int device, RealClock::time_point until);  // caller holds TimeLock
// The host's real work inside a call is the card's work in the sim (a host copy's memmove is
// its DMA): the card counts as under load for the whole call, however long a loaded CI machine
// makes it, as a real card's link and clocks are up while its DMA runs. Without this, a memmove
// longer than its modelled time plus the linger read as idle right after the copy was issued.
class CallInProgress {
 public:
  explicit CallInProgress(int device);
  ~CallInProgress();
  CallInProgress(const CallInProgress&) = delete;
  CallInProgress& operator=(const CallInProgress&) = delete;

 private:
  int device_;
};
// The hung operation on `stream` is cancelled (ncclCommAbort): the stream runs again from now and
// the card stops counting as under load. TimeLock not held by the caller.
void ReleaseHung(Stream& stream);

}  // namespace nvsim

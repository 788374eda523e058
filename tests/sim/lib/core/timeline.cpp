#include "core/timeline.h"

#include <algorithm>
#include <map>
#include <thread>

#include "core/device_memory.h"
#include "core/profile.h"
#include "core/run_stats.h"

namespace nvsim {

namespace {

// The host's virtual clock, per thread: a thread that waits for its stream moves on, another
// thread driving another GPU does not (real threads each have their own place in time).
thread_local double host_virtual_s = 0;

std::map<int, RealClock::time_point>& BusyUntil() {
  static auto* busy = new std::map<int, RealClock::time_point>();
  return *busy;
}

std::map<int, int>& CallsInProgress() {
  static auto* calls = new std::map<int, int>();
  return *calls;
}

double Pacing(Work kind) {
  switch (kind) {
    case Work::Copy: return Profile().Number("pacing/copy");
    case Work::Matmul: return Profile().Number("pacing/matmul");
    case Work::Collective: return Profile().Number("pacing/collective");
    case Work::Memtest: return Profile().Number("pacing/memtest");
  }
  return 1.0;
}

RealClock::duration Real(double seconds) {
  return std::chrono::duration_cast<RealClock::duration>(std::chrono::duration<double>(seconds));
}

void StartLocked(Stream& s, double start, double seconds, Work kind, RealClock::time_point real_from) {
  s.virtual_s = start + seconds;
  s.real_done = std::max(real_from, s.real_done) + Real(seconds * Pacing(kind));
  CountWork(kind, seconds, seconds * Pacing(kind));
  // Work whose real part (a memmove) outlasted its modelled time ended when the call returned,
  // not before: the linger counts from then.
  MarkBusy(s.device, std::max(s.real_done, RealClock::now()));
}

// Sleeps for paced work, counting the time (core/run_stats.h).
void SleepUntil(RealClock::time_point until) {
  const RealClock::time_point from = RealClock::now();
  std::this_thread::sleep_until(until);
  CountWaited(std::chrono::duration<double>(RealClock::now() - from).count());
}

}  // namespace

std::mutex& TimeLock() {
  static std::mutex mutex;
  return mutex;
}

double Enqueue(Stream& stream, double seconds, Work kind, RealClock::time_point real_started) {
  std::lock_guard<std::mutex> lock(TimeLock());
  const double start = std::max(stream.virtual_s, host_virtual_s);
  StartLocked(stream, start, seconds, kind, real_started);
  return start;
}

double NextStart(const Stream& stream) {
  std::lock_guard<std::mutex> lock(TimeLock());
  return std::max(stream.virtual_s, host_virtual_s);
}

void EnqueueTogetherLocked(Stream* const* streams, int count, double seconds, Work kind, bool hang) {
  double start = host_virtual_s;
  RealClock::time_point real_from = RealClock::now();
  for (int i = 0; i < count; ++i) {
    start = std::max(start, streams[i]->virtual_s);
    real_from = std::max(real_from, streams[i]->real_done);
  }
  for (int i = 0; i < count; ++i) {
    StartLocked(*streams[i], start, seconds, kind, real_from);
    if (hang) {
      streams[i]->hung = true;
      MarkBusy(streams[i]->device, RealClock::time_point::max() - std::chrono::hours(24 * 365));
    }
  }
}

void Record(Event& event, Stream& stream) {
  std::lock_guard<std::mutex> lock(TimeLock());
  stream.virtual_s = std::max(stream.virtual_s, host_virtual_s);
  event.device = stream.device;
  event.virtual_s = stream.virtual_s;
  event.real_done = stream.real_done;
  event.recorded = true;
  event.hung = stream.hung;
  event.legacy_device = stream.legacy ? stream.device : -1;
}

void OrderAfterLegacy(const Stream& stream) {
  if (stream.legacy || stream.blocking) LandPendingWrites(stream.device);
}

bool Done(const Stream& stream) {
  LandQueuedDma();  // the program may look at what async pinned copies moved (core/device_memory.h)
  bool done;
  {
    std::lock_guard<std::mutex> lock(TimeLock());
    done = !stream.hung && RealClock::now() >= stream.real_done;
  }
  if (done && stream.legacy) LandPendingWrites(stream.device);  // the host saw the legacy stream finish
  return done;
}

bool Done(const Event& event) {
  LandQueuedDma();
  bool done;
  {
    std::lock_guard<std::mutex> lock(TimeLock());
    if (!event.recorded) return true;
    done = !event.hung && RealClock::now() >= event.real_done;
  }
  if (done && event.legacy_device >= 0) LandPendingWrites(event.legacy_device);
  return done;
}

void Wait(const Stream& stream) {
  LandQueuedDma();
  while (true) {
    RealClock::time_point until;
    {
      std::lock_guard<std::mutex> lock(TimeLock());
      if (!stream.hung) {
        until = stream.real_done;
        if (RealClock::now() >= until) {
          host_virtual_s = std::max(host_virtual_s, stream.virtual_s);
          break;
        }
      } else {
        until = RealClock::now() + std::chrono::milliseconds(5);
      }
    }
    SleepUntil(until);
  }
  if (stream.legacy) LandPendingWrites(stream.device);
}

void Wait(const Event& event) {
  while (!Done(event)) {
    RealClock::time_point until;
    {
      std::lock_guard<std::mutex> lock(TimeLock());
      until = event.hung ? RealClock::now() + std::chrono::milliseconds(5) : event.real_done;
    }
    SleepUntil(until);
  }
  std::lock_guard<std::mutex> lock(TimeLock());
  host_virtual_s = std::max(host_virtual_s, event.virtual_s);
}

double Noise() {
  static std::mutex mutex;
  static uint64_t state = 0x9E3779B97F4A7C15ull;
  std::lock_guard<std::mutex> lock(mutex);
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  const double unit = static_cast<double>(state % 2000001) / 1000000.0 - 1.0;  // [-1, 1]
  return 1.0 + unit * Profile().Number("noise_fraction");
}

bool UnderLoad(int device) {
  std::lock_guard<std::mutex> lock(TimeLock());
  if (CallsInProgress()[device] > 0) return true;
  auto it = BusyUntil().find(device);
  if (it == BusyUntil().end()) return false;
  const auto linger = std::chrono::milliseconds(static_cast<int>(Profile().Number("pacing/load_linger_ms")));
  return RealClock::now() < it->second + linger;
}

void MarkBusy(int device, RealClock::time_point until) {
  auto& busy = BusyUntil()[device];
  busy = std::max(busy, until);
}

CallInProgress::CallInProgress(int device) : device_(device) {
  std::lock_guard<std::mutex> lock(TimeLock());
  ++CallsInProgress()[device_];
}

CallInProgress::~CallInProgress() {
  std::lock_guard<std::mutex> lock(TimeLock());
  --CallsInProgress()[device_];
  MarkBusy(device_, RealClock::now());
}

void ReleaseHung(Stream& stream) {
  std::lock_guard<std::mutex> lock(TimeLock());
  if (!stream.hung) return;
  stream.hung = false;
  stream.real_done = RealClock::now();
  BusyUntil()[stream.device] = stream.real_done;
}

}  // namespace nvsim

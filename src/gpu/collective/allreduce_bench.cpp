#include "gpu/collective/allreduce_bench.h"

#include <algorithm>
#include <optional>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "gpu/collective/allreduce_math.h"

namespace labcheck::gpu {

namespace {

using Clock = std::chrono::steady_clock;

// Enqueues one all-reduce of `count` floats on every local rank, grouped as NCCL requires when a
// thread drives several ranks.
Status Enqueue(const Nccl& nccl, RankGroup& group, size_t count) {
  const nccl::NcclApi& api = nccl.api();
  nccl::ncclResult_t r = api.ncclGroupStart();
  for (LocalRank& rank : group.local) {
    if (r != nccl::kSuccess) break;
    r = api.ncclAllReduce(rank.send.as_pointer(), rank.receive.as_pointer(), count, nccl::kFloat32, nccl::kSum,
                          rank.comm, rank.stream.get());
  }
  nccl::ncclResult_t ended = api.ncclGroupEnd();
  if (r == nccl::kSuccess) r = ended;
  return r == nccl::kSuccess ? Status::Ok() : Status::Error("ncclAllReduce failed: " + nccl.Describe(r));
}

enum class Wait { Done, Stalled, NcclError };

// Waits for every local stream without blocking in the driver, watching NCCL's asynchronous
// errors, so a broken link turns into a report instead of a process stuck in cuStreamSynchronize.
// `spin`: poll without sleeping, as nccl-tests does while its host clock runs (a 50 µs sleep would
// add up to its own length to the figure); after 20 ms of spinning it sleeps again between polls,
// since that error is then below 0.5 % and a long wait need not keep a core busy.
Wait WaitAll(const CudaDriver& driver, const Nccl& nccl, RankGroup& group, double timeout_s, std::string* error,
             bool spin = false) {
  const auto started = Clock::now();
  const auto deadline = started + std::chrono::duration<double>(timeout_s);
  const auto spin_until = started + (spin ? std::chrono::milliseconds(20) : std::chrono::milliseconds(0));
  while (true) {
    bool all_done = true;
    for (LocalRank& rank : group.local) {
      (void)rank.context->MakeCurrent();
      cuda::CUresult q = driver.api().cuStreamQuery(rank.stream.get());
      if (q == cuda::kErrorNotReady) {
        all_done = false;
      } else if (q != cuda::kSuccess) {
        *error = driver.Describe(q);
        return Wait::NcclError;
      }
      nccl::ncclResult_t async = nccl::kSuccess;
      nccl.api().ncclCommGetAsyncError(rank.comm, &async);
      if (async != nccl::kSuccess && async != nccl::kInProgress) {
        *error = nccl.Describe(async);
        return Wait::NcclError;
      }
    }
    if (all_done) return Wait::Done;
    const auto now = Clock::now();
    if (now > deadline) return Wait::Stalled;
    if (now < spin_until) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// Compares every element of every local rank's result with the exact sum, one period of the
// input pattern at a time: the expected values are made once, and host memory stays small.
bool CheckSum(const CudaDriver& driver, RankGroup& group, size_t count) {
  const size_t chunk = std::min(count, kAllReducePeriod);
  std::vector<float> want(chunk), got(chunk);
  for (size_t i = 0; i < chunk; ++i) want[i] = AllReduceExpected(group.world_size, i);
  for (size_t first = 0; first < count; first += chunk) {
    const size_t n = std::min(chunk, count - first);
    for (LocalRank& rank : group.local) {
      (void)rank.context->MakeCurrent();
      if (driver.api().cuMemcpyDtoH(got.data(), rank.receive.get() + first * sizeof(float), n * sizeof(float)) !=
          cuda::kSuccess)
        return false;
      if (std::memcmp(got.data(), want.data(), n * sizeof(float)) != 0) return false;  // bit-exact
    }
  }
  return true;
}

void AbortAll(const Nccl& nccl, RankGroup& group) {
  for (LocalRank& rank : group.local) {
    if (rank.comm != nullptr) nccl.api().ncclCommAbort(rank.comm);
    rank.comm = nullptr;
  }
}

// One sweep's state: every step that goes wrong fills result's error and says so by returning
// false or nullopt; the sweep then stops.
struct TimedSweep {
  const CudaDriver& driver;
  const Nccl& nccl;
  RankGroup& group;
  const SweepPlan& plan;
  SweepResult& result;
  std::vector<EventTimer> timers;

  // Enqueues `calls` all-reduces and waits for them; false (with the result filled) on trouble.
  bool Run(size_t count, int calls, bool spin = false) {
    for (int i = 0; i < calls; ++i) {
      Status status = Enqueue(nccl, group, count);
      if (!status.ok()) {
        result.nccl_error = status.message();
        AbortAll(nccl, group);
        return false;
      }
    }
    std::string error;
    Wait w = WaitAll(driver, nccl, group, plan.stall_timeout_s, &error, spin);
    if (w == Wait::Done) return true;
    result.hung = w == Wait::Stalled;
    result.nccl_error = error;
    AbortAll(nccl, group);
    return false;
  }

  // One pair of events per rank, recorded on the rank's own stream around the timed iterations
  // (as nccl-tests does with cudaEvents): the host's polling, its sleeps and its per-rank
  // queries are not part of the figure. The size's time is the slowest rank's.
  bool CreateTimers() {
    for (LocalRank& rank : group.local) {
      Status status = rank.context->MakeCurrent();
      Result<EventTimer> timer = status.ok() ? EventTimer::Create(driver) : Result<EventTimer>(status);
      if (!timer.ok()) {
        result.nccl_error = timer.status().message();
        return false;
      }
      timers.push_back(std::move(timer).value());
    }
    return true;
  }

  Status Record(bool start) {
    for (size_t r = 0; r < group.local.size(); ++r) {
      Status status = group.local[r].context->MakeCurrent();
      if (status.ok()) status = start ? timers[r].Start(group.local[r].stream) : timers[r].Stop(group.local[r].stream);
      if (!status.ok()) return status;
    }
    return Status::Ok();
  }

  std::optional<double> SlowestRankMs() {
    double slowest_ms = 0;
    for (size_t r = 0; r < group.local.size(); ++r) {
      (void)group.local[r].context->MakeCurrent();
      Result<double> ms = timers[r].ElapsedMs();
      if (!ms.ok()) {
        result.nccl_error = ms.status().message();
        return std::nullopt;
      }
      slowest_ms = std::max(slowest_ms, *ms);
    }
    return slowest_ms;
  }

  // Warm-up, then plan.iterations timed all-reduces of `bytes`, then the sum checked.
  std::optional<SizeResult> Measure(size_t bytes) {
    const size_t count = bytes / sizeof(float);
    if (!Run(count, plan.warmup)) return std::nullopt;
    Status status = Record(true);
    if (!status.ok()) {
      result.nccl_error = status.message();
      return std::nullopt;
    }
    // nccl-tests' clock: from before the first timed enqueue until the host sees every stream done.
    const Clock::time_point host_started = Clock::now();
    for (int i = 0; i < plan.iterations; ++i) {
      status = Enqueue(nccl, group, count);
      if (!status.ok()) break;
    }
    if (status.ok()) status = Record(false);
    if (!status.ok()) {
      result.nccl_error = status.message();
      AbortAll(nccl, group);
      return std::nullopt;
    }
    if (!Run(count, 0, /*spin=*/true)) return std::nullopt;  // waits for the timed iterations, watching for a hang
    const double host_us = std::chrono::duration<double, std::micro>(Clock::now() - host_started).count();
    std::optional<double> slowest_ms = SlowestRankMs();
    if (!slowest_ms) return std::nullopt;
    SizeResult size;
    size.bytes = bytes;
    size.time_ms = *slowest_ms / plan.iterations;
    size.algbw_gbps = AlgorithmBandwidthGbps(bytes, size.time_ms);
    size.busbw_gbps = BusBandwidthGbps(bytes, size.time_ms, group.world_size);
    size.host_time_us = host_us / plan.iterations;
    size.correct = CheckSum(driver, group, count);
    return size;
  }
};

}  // namespace

Status PrepareRanks(const CudaDriver& driver, RankGroup& group, size_t max_bytes) {
  const size_t count = max_bytes / sizeof(float);
  for (LocalRank& rank : group.local) {
    Status status = rank.context->MakeCurrent();
    if (!status.ok()) return status;
    for (DeviceBuffer* buffer : {&rank.send, &rank.receive}) {
      Result<DeviceBuffer> allocated = DeviceBuffer::Allocate(driver, max_bytes);
      if (!allocated.ok()) return allocated.status();
      *buffer = std::move(allocated).value();
    }
    Result<Stream> stream = Stream::Create(driver);
    if (!stream.ok()) return stream.status();
    rank.stream = std::move(stream).value();
    // One period of the pattern, copied in as often as the buffer holds it.
    std::vector<float> period(std::min(count, kAllReducePeriod));
    for (size_t i = 0; i < period.size(); ++i) period[i] = AllReduceInput(rank.rank, i);
    for (size_t first = 0; status.ok() && first < count; first += period.size()) {
      const size_t n = std::min(period.size(), count - first);
      status = driver.Check(
          driver.api().cuMemcpyHtoD(rank.send.get() + first * sizeof(float), period.data(), n * sizeof(float)),
          "cuMemcpyHtoD");
    }
    // The copy runs on the default stream; NCCL's work goes on rank.stream (non-blocking).
    if (status.ok()) status = WaitForSetup(driver);
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

Result<size_t> SmallestFreeBytes(const CudaDriver& driver, const RankGroup& group) {
  std::optional<size_t> smallest;
  for (const LocalRank& rank : group.local) {
    Status status = rank.context->MakeCurrent();
    size_t free_bytes = 0, total = 0;
    if (status.ok()) status = driver.Check(driver.api().cuMemGetInfo(&free_bytes, &total), "cuMemGetInfo");
    if (!status.ok()) return Status::Error(fmt::format("GPU{}: {}", rank.context->ordinal(), status.message()));
    smallest = smallest ? std::min(*smallest, free_bytes) : free_bytes;
  }
  if (!smallest) return Status::Error("no rank to ask");
  return *smallest;
}

SweepResult RunAllReduceSweep(const CudaDriver& driver, const Nccl& nccl, RankGroup& group, const SweepPlan& plan) {
  SweepResult result;
  TimedSweep sweep{driver, nccl, group, plan, result};
  if (!sweep.CreateTimers()) return result;
  for (size_t bytes : plan.sizes_bytes) {
    std::optional<SizeResult> size = sweep.Measure(bytes);
    if (!size) return result;
    result.wrong_sum = result.wrong_sum || !size->correct;
    result.sizes.push_back(*size);
  }
  return result;
}

}  // namespace labcheck::gpu

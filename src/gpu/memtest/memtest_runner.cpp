#include "gpu/memtest/memtest_runner.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "gpu/bench/kernel_module.h"
#include "gpu/bench/sm_copy_bench.h"

namespace labcheck::gpu::memtest {

namespace {

// An uncorrectable ECC error leaves the context unusable: every later call returns 214 (cuda.h,
// CUDA_ERROR_ECC_UNCORRECTABLE, "an uncorrectable ECC error was detected during execution").
bool EccLost(const Status& status) {
  const std::string& m = status.message();
  return m.find("(214)") != std::string::npos || m.find("CUresult 214") != std::string::npos;
}

Result<int> DeviceAttributeValue(const CudaDriver& driver, cuda::CUdevice device, int attribute) {
  int value = 0;
  Status status = driver.Check(driver.api().cuDeviceGetAttribute(&value, attribute, device), "cuDeviceGetAttribute");
  if (!status.ok()) return status;
  return value;
}

class CardRunner {
 public:
  CardRunner(const DeviceContext& context, const TestMemory& memory, const RunLimits& limits)
      : context_(context), driver_(context.driver()), memory_(memory), limits_(limits) {}

  Status Prepare();
  // Runs one pattern's steps into `run`; false when the card must stop (time, stop(), an error).
  bool RunPattern(PatternId id, int pass, PatternRun& run, const StopFn& stop, CardOutcome& outcome);

 private:
  Status RunStep(const Step& step, PatternRun& run);
  Status LaunchFill(const Step& step, bool check);
  Status LaunchWalk(bool check);
  Status LaunchEvict(const Step& step);
  Status Launch(cuda::CUfunction function, LaunchShape shape, void** params);
  Status InjectFlips(PatternRun& run);

  const DeviceContext& context_;
  const CudaDriver& driver_;
  const TestMemory& memory_;
  const RunLimits& limits_;
  KernelModule module_;
  cuda::CUfunction fill_ = nullptr, check_ = nullptr, walk_ = nullptr;
  Stream stream_;
  EventTimer timer_;
  DeviceBuffer errors_;
  LaunchShape shape_;
  PatternPlan plan_;
  double spent_s_ = 0;
};

Status CardRunner::Prepare() {
  Result<int> sms = DeviceAttributeValue(driver_, context_.device(), cuda::kAttrMultiprocessorCount);
  if (!sms.ok()) return sms.status();
  Result<int> threads = DeviceAttributeValue(driver_, context_.device(), cuda::kAttrMaxThreadsPerMultiprocessor);
  shape_ = GridForEverySm(*sms, threads.ok() ? *threads : 1024);
  Result<int> l2 = DeviceAttributeValue(driver_, context_.device(), cuda::kAttrL2CacheSize);
  plan_.l2_bytes = l2.ok() ? static_cast<uint64_t>(std::max(0, *l2)) : 0;
  plan_.tested_bytes = memory_.tested_bytes;
  plan_.seed = limits_.seed;
  plan_.fade_wait_s = limits_.fade_wait_s;
  Result<KernelModule> module = KernelModule::Load(driver_, MemtestKernelsPtx());
  if (!module.ok()) return module.status();
  module_ = std::move(module).value();
  for (auto [name, function] : {std::pair{kFillKernelName, &fill_}, std::pair{kCheckKernelName, &check_},
                                std::pair{kWalkKernelName, &walk_}}) {
    Result<cuda::CUfunction> f = module_.Function(name);
    if (!f.ok()) return f.status();
    *function = *f;
  }
  Result<Stream> stream = Stream::Create(driver_);
  if (!stream.ok()) return stream.status();
  stream_ = std::move(stream).value();
  Result<EventTimer> timer = EventTimer::Create(driver_);
  if (!timer.ok()) return timer.status();
  timer_ = std::move(timer).value();
  Result<DeviceBuffer> errors = DeviceBuffer::Allocate(driver_, kErrorBufferBytes);
  if (!errors.ok()) return errors.status();
  errors_ = std::move(errors).value();
  Status status = driver_.Check(driver_.api().cuMemsetD32(errors_.get(), 0, kErrorBufferBytes / 4), "cuMemsetD32");
  return status.ok() ? WaitForSetup(driver_) : status;
}

Status CardRunner::Launch(cuda::CUfunction function, LaunchShape shape, void** params) {
  return module_.Launch(function, shape, stream_.get(), params);
}

// One launch per chunk; every thread of the grid takes per_thread elements, so the grid covers
// each chunk exactly (the simulator refuses a launch that would not).
Status CardRunner::LaunchFill(const Step& step, bool check) {
  const unsigned long long threads = 1ull * shape_.blocks * shape_.threads_per_block;
  for (const TestedRange& range : memory_.ranges) {
    unsigned long long base = range.address, elements = range.bytes / 16, param = step.param, xor_mask = step.xor_mask;
    unsigned long long logical = range.logical, errors = errors_.get();
    unsigned per_thread = static_cast<unsigned>((elements + threads - 1) / threads);
    unsigned kind = static_cast<unsigned>(step.kind), invert = step.op == Step::Op::CheckInvert ? 1u : 0u;
    void* fill_params[] = {&base, &elements, &per_thread, &kind, &param, &xor_mask, &logical};
    void* check_params[] = {&base, &elements, &per_thread, &kind, &param, &xor_mask, &logical, &errors, &invert};
    Status status = Launch(check ? check_ : fill_, shape_, check ? check_params : fill_params);
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

Status CardRunner::LaunchWalk(bool check) {
  for (const TestedRange& range : memory_.ranges) {
    unsigned long long base = range.address, bytes = range.bytes, logical = range.logical;
    unsigned long long total = memory_.tested_bytes, errors = errors_.get();
    unsigned flag = check ? 1u : 0u;
    void* params[] = {&base, &bytes, &logical, &total, &errors, &flag};
    Status status = Launch(walk_, LaunchShape{1, 1}, params);
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

// Zeros over the part of [range_begin, range_end) each chunk holds.
Status CardRunner::LaunchEvict(const Step& step) {
  const unsigned long long threads = 1ull * shape_.blocks * shape_.threads_per_block;
  for (const TestedRange& range : memory_.ranges) {
    const uint64_t begin = std::max(step.range_begin, range.logical), end = std::min(step.range_end, range.logical + range.bytes);
    if (begin >= end) continue;
    unsigned long long base = range.address + (begin - range.logical), elements = (end - begin) / 16, logical = begin;
    unsigned long long param = 0, xor_mask = 0;
    unsigned per_thread = static_cast<unsigned>((elements + threads - 1) / threads), kind = 0;
    void* params[] = {&base, &elements, &per_thread, &kind, &param, &xor_mask, &logical};
    Status status = Launch(fill_, shape_, params);
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

Status CardRunner::RunStep(const Step& step, PatternRun& run) {
  if (step.op == Step::Op::Wait) {
    std::this_thread::sleep_for(std::chrono::duration<double>(plan_.fade_wait_s));
    return Status::Ok();
  }
  Status status = timer_.Start(stream_);
  if (!status.ok()) return status;
  switch (step.op) {
    case Step::Op::WalkWrite:
    case Step::Op::WalkCheck: status = LaunchWalk(step.op == Step::Op::WalkCheck); break;
    case Step::Op::Evict: status = LaunchEvict(step); break;
    default: status = LaunchFill(step, step.op != Step::Op::Fill); break;
  }
  if (status.ok()) status = timer_.Stop(stream_);
  if (!status.ok()) return status;
  Result<double> ms = timer_.ElapsedMs();
  if (!ms.ok()) return ms.status();
  run.seconds += *ms / 1000;
  spent_s_ += *ms / 1000;
  run.bytes_moved += step.op == Step::Op::Evict ? step.range_end - step.range_begin
                                                : static_cast<uint64_t>(step.Traversals() * static_cast<double>(memory_.tested_bytes));
  if (!step.CountsErrors()) return Status::Ok();
  Result<ErrorTally> tally = ReadAndResetErrors(driver_, errors_.get());
  if (!tally.ok()) return tally.status();
  run.errors.Add(*tally);
  return Status::Ok();
}

Status CardRunner::InjectFlips(PatternRun& run) {
  const std::vector<uint64_t> offsets = FlipOffsets(run.id, memory_.tested_bytes);
  for (size_t i = 0; i < offsets.size(); ++i) {
    uint64_t address = 0;
    for (const TestedRange& r : memory_.ranges)
      if (offsets[i] >= r.logical && offsets[i] < r.logical + r.bytes) address = r.address + (offsets[i] - r.logical);
    const int bit = FlipBit(run.id, static_cast<int>(i));
    uint64_t word = 0;
    Status status = driver_.Check(driver_.api().cuMemcpyDtoH(&word, address, 8), "cuMemcpyDtoH");
    word ^= uint64_t{1} << bit;
    if (status.ok()) status = driver_.Check(driver_.api().cuMemcpyHtoD(address, &word, 8), "cuMemcpyHtoD");
    if (!status.ok()) return status;
    run.flips.push_back({address, bit});
  }
  // A synchronous copy from pageable memory may return before its DMA lands, on the legacy stream
  // our stream does not wait for.
  return WaitForSetup(driver_);
}

bool CardRunner::RunPattern(PatternId id, int pass, PatternRun& run, const StopFn& stop, CardOutcome& outcome) {
  plan_.pass = pass;
  run.id = id;
  run.pass = pass;
  run.traversals = TraversalsOf(id, plan_);
  bool flipped = !limits_.self_test;
  for (const Step& step : StepsOf(id, plan_)) {
    const bool out_of_time = limits_.device_seconds && spent_s_ >= *limits_.device_seconds && id != PatternId::BitFade;
    if (out_of_time || (stop && stop())) {
      run.complete = false;
      return false;
    }
    Status status = RunStep(step, run);
    if (status.ok() && !flipped && (step.op == Step::Op::Fill || step.op == Step::Op::WalkWrite)) {
      flipped = true;
      status = InjectFlips(run);
    }
    if (!status.ok()) {
      run.complete = false;
      outcome.error = status.message();
      outcome.context_lost = EccLost(status);
      return false;
    }
  }
  outcome.device_seconds = spent_s_;
  return true;
}

}  // namespace

std::vector<uint64_t> FlipOffsets(PatternId id, uint64_t tested_bytes) {
  const uint64_t p = static_cast<uint64_t>(id);
  if (id == PatternId::WalkingOnes) {
    const std::vector<uint64_t> walked = WalkOffsets(tested_bytes);
    if (walked.size() < 3) return walked;
    return {walked[1], walked[walked.size() / 2], walked.back()};
  }
  // Near the start, in the middle (the second word of an element) and near the end.
  return {16 * (1 + p), tested_bytes / 2 / 16 * 16 + 8 + 16 * p, tested_bytes - 16 * (p + 2)};
}

int FlipBit(PatternId id, int which) { return static_cast<int>((static_cast<int>(id) * 7 + which * 19 + 3) % 64); }

CardOutcome RunMemtest(const DeviceContext& context, const TestMemory& memory, const RunLimits& limits, const RunSink& sink,
                       const StopFn& stop) {
  CardOutcome outcome;
  CardRunner runner(context, memory, limits);
  if (Status status = runner.Prepare(); !status.ok()) {
    outcome.error = status.message();
    outcome.context_lost = EccLost(status);
    return outcome;
  }
  bool going = true;
  for (int pass = 0; going && (!limits.passes || pass < *limits.passes); ++pass) {
    for (PatternId id : kPassPatterns) {
      PatternRun run;
      going = runner.RunPattern(id, pass, run, stop, outcome);
      if (run.seconds > 0 || !run.errors.empty() || run.complete) sink(run);
      if (!going) break;
    }
    if (going) outcome.passes = pass + 1;
    if (!limits.passes && !limits.device_seconds) break;  // neither given: one pass
  }
  if (limits.bit_fade && outcome.error.empty() && !(stop && stop())) {
    PatternRun run;
    runner.RunPattern(PatternId::BitFade, outcome.passes, run, stop, outcome);
    sink(run);
  }
  return outcome;
}

nlohmann::json PatternRunJson(const PatternRun& run, const std::vector<TestedRange>& ranges) {
  nlohmann::json j = {{"pattern", Info(run.id).key}, {"pass", run.pass},
                      {"bytes_moved", run.bytes_moved}, {"seconds", run.seconds},
                      {"complete", run.complete}, {"errors", TallyJson(run.errors, ranges)}};
  if (run.traversals > 0 && run.seconds > 0) j["gbps"] = static_cast<double>(run.bytes_moved) / run.seconds / 1e9;
  if (!run.flips.empty()) {
    nlohmann::json flips = nlohmann::json::array();
    for (const Flip& f : run.flips) flips.push_back({{"address", fmt::format("0x{:016x}", f.address)}, {"bit", f.bit}});
    j["flips"] = flips;
  }
  return j;
}

}  // namespace labcheck::gpu::memtest

#include "cuda/cuda_memtest.h"

#include <array>
#include <cstdio>
#include <cstring>

#include "core/device_memory.h"
#include "core/heat.h"
#include "core/memory_faults.h"
#include "core/pattern_memory.h"

namespace cusim {

namespace {

// The error buffer's layout (src/gpu/memtest/memtest_kernels_ptx.h).
constexpr size_t kHistogramOffset = 8, kRecordsOffset = 520, kRecordBytes = 32, kErrorBufferBytes = 1544;
constexpr uint64_t kMaxRecords = 32, kHistogramCap = uint64_t{1} << 16;

struct MemtestKernel {
  const char* name;
  std::vector<std::string> params;
};
const MemtestKernel kFill{"labcheck_mt_fill", {".u64", ".u64", ".u32", ".u32", ".u64", ".u64", ".u64"}};
const MemtestKernel kCheck{"labcheck_mt_check", {".u64", ".u64", ".u32", ".u32", ".u64", ".u64", ".u64", ".u64", ".u32"}};
const MemtestKernel kWalk{"labcheck_mt_walk", {".u64", ".u64", ".u64", ".u64", ".u64", ".u32"}};

template <class T>
T MemtestParam(void** params, int index) {
  T value;
  std::memcpy(&value, params[index], sizeof value);
  return value;
}

nvsim::DevicePlace OnThisDevice(uint64_t pointer, uint64_t bytes, int device) {
  nvsim::DevicePlace place = nvsim::Find(static_cast<uintptr_t>(pointer), bytes);
  if (!place.allocation || place.allocation->device != device) return {};
  return place;
}

// What the check and walk kernels add to the error buffer: the count, one count per wrong bit
// for the first kHistogramCap words, the first kMaxRecords words (read again: the same value, the
// sim's faults being steady).
class ErrorBuffer {
 public:
  explicit ErrorBuffer(nvsim::DevicePlace place) : place_(std::move(place)) {
    nvsim::ReadBytes(place_, header_, sizeof header_);
    start_ = header_[0];
  }
  bool Add(uint64_t address, uint64_t expected, uint64_t read) {
    const uint64_t index = start_ + seen_++;
    if (index < kMaxRecords) records_.push_back({index, {address, expected, read, read}});
    if (index < kHistogramCap)
      for (uint64_t bits = expected ^ read; bits != 0; bits &= bits - 1) ++header_[1 + __builtin_ctzll(bits)];
    return index + 1 < kHistogramCap;
  }
  void Store(uint64_t count) {
    header_[0] = start_ + count;
    nvsim::WriteBytes(place_, header_, sizeof header_);
    for (const auto& [index, record] : records_)
      nvsim::WriteBytes({place_.allocation, place_.offset + kRecordsOffset + index * kRecordBytes}, record.data(), kRecordBytes);
  }

 private:
  nvsim::DevicePlace place_;
  uint64_t header_[1 + 64] = {};
  uint64_t start_ = 0, seen_ = 0;
  std::vector<std::pair<uint64_t, std::array<uint64_t, 4>>> records_;
};

// A grid that does not reach every element would leave memory untested: refused, and said.
bool GridCovers(const char* kernel, unsigned blocks, unsigned threads, unsigned per_thread, uint64_t elements) {
  const uint64_t covered = uint64_t{blocks} * threads * per_thread;
  if (covered >= elements) return true;
  std::fprintf(stderr, "nvsim: %s launched with %u blocks x %u threads x %u elements each: covers %llu of the %llu elements it was given\n",
               kernel, blocks, threads, per_thread, static_cast<unsigned long long>(covered), static_cast<unsigned long long>(elements));
  return false;
}

// Modelled time for `counted` bytes read + written, at the profile's memory-test rate.
void SpendMemtestTime(nvsim::Stream& stream, double counted, unsigned blocks, unsigned threads, nvsim::RealClock::time_point started) {
  const nvsim::Gpu& g = nvsim::Profile().gpus[stream.device];
  const double copy = g.NumberOr("perf/kernel_copy_gbps", g.Number("perf/device_copy_gbps"));
  const double gbps = g.NumberOr("perf/memtest_gbps", copy) * Occupancy(g, blocks, threads);
  const double seconds = g.Number("perf/latency_us") * 1e-6 + counted / (gbps * 1e9) * nvsim::Noise();
  nvsim::Enqueue(stream, seconds, nvsim::Work::Memtest, started);
  nvsim::AddWork(stream.device, seconds);  // core/heat.h: the test heats the card too
}

CUresult RunCheckKernel(nvsim::Stream& stream, void** params, unsigned blocks, unsigned threads, bool fill) {
  const auto started = nvsim::RealClock::now();
  const uint64_t base = MemtestParam<uint64_t>(params, 0), elements = MemtestParam<uint64_t>(params, 1);
  const unsigned per_thread = MemtestParam<unsigned>(params, 2);
  const nvsim::Pattern pattern{MemtestParam<unsigned>(params, 3), MemtestParam<uint64_t>(params, 4), MemtestParam<uint64_t>(params, 5), base,
                               MemtestParam<uint64_t>(params, 6)};
  const nvsim::DevicePlace place = OnThisDevice(base, elements * 16, stream.device);
  const nvsim::DevicePlace errors = fill ? nvsim::DevicePlace{} : OnThisDevice(MemtestParam<uint64_t>(params, 7), kErrorBufferBytes, stream.device);
  if (!place.allocation || (!fill && !errors.allocation)) return kIllegalAddress;
  if (!GridCovers(fill ? kFill.name : kCheck.name, blocks, threads, per_thread, elements)) return kInvalidValue;
  const bool invert = !fill && MemtestParam<unsigned>(params, 8) != 0;
  const uint64_t bytes = elements * 16;
  if (fill) {
    nvsim::WritePattern(place, bytes, pattern);
  } else {
    ErrorBuffer buffer(errors);
    const nvsim::CheckOutcome outcome = nvsim::CheckPattern(
        place, bytes, pattern, [&](uint64_t a, uint64_t e, uint64_t r) { return buffer.Add(a, e, r); });
    nvsim::AddEccEvents(stream.device, outcome.ecc_corrected, outcome.ecc_uncorrected ? 1 : 0);
    if (outcome.ecc_uncorrected) {
      // The kernel dies on the uncorrectable word: nothing more of it lands, the context is lost.
      nvsim::PrimaryContext(stream.device).sticky_error = kEccUncorrectable;
    } else {
      buffer.Store(outcome.count);
      if (invert) {
        nvsim::Pattern complement = pattern;
        complement.xor_mask = ~complement.xor_mask;
        nvsim::WritePattern(place, bytes, complement);
      }
    }
  }
  SpendMemtestTime(stream, static_cast<double>(bytes) * (invert ? 2 : 1), blocks, threads, started);
  return kSuccess;
}

// One thread walks the power-of-two offsets of the tested memory that fall in this chunk.
CUresult RunWalkKernel(nvsim::Stream& stream, void** params) {
  const auto started = nvsim::RealClock::now();
  const uint64_t base = MemtestParam<uint64_t>(params, 0), bytes = MemtestParam<uint64_t>(params, 1), logical = MemtestParam<uint64_t>(params, 2);
  const uint64_t total = MemtestParam<uint64_t>(params, 3);
  const bool check = MemtestParam<unsigned>(params, 5) != 0;
  if (!OnThisDevice(base, bytes, stream.device).allocation) return kIllegalAddress;
  const nvsim::DevicePlace errors = check ? OnThisDevice(MemtestParam<uint64_t>(params, 4), kErrorBufferBytes, stream.device) : nvsim::DevicePlace{};
  if (check && !errors.allocation) return kIllegalAddress;
  std::optional<ErrorBuffer> buffer;
  if (check) buffer.emplace(errors);
  uint64_t differed = 0;
  for (uint64_t offset = 0; offset < total; offset = offset == 0 ? 8 : offset * 2) {
    if (offset < logical || offset - logical >= bytes) continue;
    const uint64_t address = base + (offset - logical), word = offset == 0 ? 1 : offset;
    const nvsim::DevicePlace at = OnThisDevice(address, 8, stream.device);
    if (!check) {
      nvsim::WriteBytes(at, &word, 8);
      continue;
    }
    const nvsim::Pattern expected{0, word, 0, address, offset};
    differed += nvsim::CheckPattern(at, 8, expected, [&](uint64_t a, uint64_t e, uint64_t r) { return buffer->Add(a, e, r); }).count;
  }
  if (buffer) buffer->Store(differed);
  SpendMemtestTime(stream, 0, 1, 1, started);
  return kSuccess;
}

}  // namespace

std::optional<CUresult> RunMemtestKernel(const std::string& name, const std::vector<std::string>& param_types,
                                         nvsim::Stream& stream, void** params, unsigned blocks, unsigned threads) {
  const bool ours = (name == kFill.name && param_types == kFill.params) || (name == kCheck.name && param_types == kCheck.params) ||
                    (name == kWalk.name && param_types == kWalk.params);
  if (!ours) return std::nullopt;
  nvsim::TrackCells(stream.device);  // from the first of them on, every write to the card is followed
  if (name == kFill.name && param_types == kFill.params) return RunCheckKernel(stream, params, blocks, threads, true);
  if (name == kCheck.name && param_types == kCheck.params) return RunCheckKernel(stream, params, blocks, threads, false);
  if (name == kWalk.name && param_types == kWalk.params) return RunWalkKernel(stream, params);
  return std::nullopt;
}

}  // namespace cusim

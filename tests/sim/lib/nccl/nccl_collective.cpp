// libnccl.so.2 sim: what an all-reduce costs and what it returns. Bus bandwidth is the profile's
// curve ("allreduce/busbw_gbps", or "…_p2p_disabled" under NCCL_P2P_DISABLE=1) interpolated in
// log(size); time = bytes / algbw with algbw = busbw · n / (2(n−1)), as nccl-tests count it
// (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md). The sum is computed when
// the receive buffer is read.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "core/profile_schema.h"
#include "nccl/nccl_internal.h"

namespace ncclsim {

namespace {

// The last chunk summed, shared by every rank's producer of one collective: a check that reads
// the ranks' results chunk by chunk sums each chunk once, not once per rank. Shared, not copied:
// a chunk is megabytes, and copying it in and out of the cache was a fifth of a full sweep's CPU.
struct SumCache {
  std::mutex mutex;
  size_t first = 0;
  std::shared_ptr<std::vector<float>> sum;  // read only once cached
  std::vector<float> part;  // one rank's send while summing (producers run under the device-memory lock)
};

class SumProducer : public nvsim::Producer {
 public:
  SumProducer(std::vector<nvsim::DevicePlace> sends, std::shared_ptr<SumCache> cache, size_t wrong_element, bool wrong)
      : sends_(std::move(sends)), cache_(std::move(cache)), wrong_element_(wrong_element), wrong_(wrong) {}

  void Produce(size_t offset, void* out, size_t bytes) const override {
    const size_t first = offset / 4, last = (offset + bytes + 3) / 4;
    std::shared_ptr<std::vector<float>> sum, spare;
    {
      std::lock_guard<std::mutex> lock(cache_->mutex);
      if (cache_->sum && cache_->first == first && cache_->sum->size() == last - first) sum = cache_->sum;
      else if (cache_->sum.use_count() == 1) spare = std::move(cache_->sum);  // no reader left: its pages serve again
    }
    if (!sum) {
      sum = spare ? std::move(spare) : std::make_shared<std::vector<float>>();
      Sum(first, last - first, *sum);
      std::lock_guard<std::mutex> lock(cache_->mutex);
      cache_->first = first;
      cache_->sum = sum;
    }
    std::memcpy(out, reinterpret_cast<const char*>(sum->data()) + (offset - first * 4), bytes);
    // This rank's one wrong element: its bytes that fall inside the range read.
    if (wrong_ && wrong_element_ >= first && wrong_element_ < last) {
      const float off_by_one = (*sum)[wrong_element_ - first] + 1.0f;
      const size_t at = wrong_element_ * 4;
      for (size_t b = std::max(at, offset); b < std::min(at + 4, offset + bytes); ++b)
        static_cast<char*>(out)[b - offset] = reinterpret_cast<const char*>(&off_by_one)[b - at];
    }
  }

  // Elements [first, first + count) summed over the ranks in rank order, starting from 0.0f as a
  // reduction does (0.0f + x is not x for x = -0.0f).
  // (Fresh buffers for every chunk of a sweep's 2 GiB per rank were gigabytes of page faults.)
  void Sum(size_t first, size_t count, std::vector<float>& sum) const {
    std::vector<float>& part = cache_->part;
    sum.resize(count);
    part.resize(count);
    for (size_t r = 0; r < sends_.size(); ++r) {
      const nvsim::DevicePlace& s = sends_[r];
      float* into = r == 0 ? sum.data() : part.data();
      nvsim::ReadBytes({s.allocation, s.offset + first * 4}, into, count * 4);
      if (r == 0) {
        for (size_t i = 0; i < count; ++i) into[i] = 0.0f + into[i];
      } else {
        for (size_t i = 0; i < count; ++i) sum[i] += part[i];
      }
    }
  }

  bool ReadsFrom(const nvsim::Allocation* a) const override {
    for (const nvsim::DevicePlace& s : sends_)
      if (s.allocation.get() == a) return true;
    return false;
  }

 private:
  std::vector<nvsim::DevicePlace> sends_;
  std::shared_ptr<SumCache> cache_;
  size_t wrong_element_;
  bool wrong_;
};

double Interpolate(const nvsim::json* curve, double mib) {
  if (curve == nullptr || !curve->is_array() || curve->empty()) curve = nvsim::DefaultAt(nvsim::Defaults(), "allreduce/busbw_gbps");
  std::vector<std::pair<double, double>> points;
  for (const nvsim::json& p : *curve) points.emplace_back(p[0].get<double>(), p[1].get<double>());
  if (mib <= points.front().first) return points.front().second;
  for (size_t i = 1; i < points.size(); ++i) {
    if (mib <= points[i].first) {
      const double t = std::log(mib / points[i - 1].first) / std::log(points[i].first / points[i - 1].first);
      return points[i - 1].second + t * (points[i].second - points[i - 1].second);
    }
  }
  return points.back().second;
}

}  // namespace

bool P2pDisabled() {
  const char* v = std::getenv("NCCL_P2P_DISABLE");
  return v != nullptr && std::string(v) == "1";
}

void Launch(const std::vector<Op>& ops, int world_size, bool data_done, bool stuck) {
  const nvsim::Machine& m = nvsim::Profile();
  const bool p2p_off = P2pDisabled();
  const std::string hang = m.String("allreduce/hang");
  const bool hangs = stuck || hang == "always" || (hang == "unless_p2p_disabled" && !p2p_off);
  const size_t bytes = ops.front().count * 4;
  double seconds;
  if (world_size > 1) {
    const nvsim::json* curve = m.At(p2p_off ? "allreduce/busbw_gbps_p2p_disabled" : "allreduce/busbw_gbps");
    if (curve == nullptr) curve = m.At("allreduce/busbw_gbps");
    const double busbw = Interpolate(curve, static_cast<double>(bytes) / (1 << 20));
    const double algbw = busbw * world_size / (2.0 * (world_size - 1));
    seconds = static_cast<double>(bytes) / (algbw * 1e9);
  } else {  // one rank: a device-local copy
    seconds = 2.0 * bytes / (m.gpus[ops.front().comm->device].Number("perf/device_copy_gbps") * 1e9);
  }
  seconds = seconds * nvsim::Noise() + m.Number("allreduce/latency_us") * 1e-6;

  if (hangs) {
    for (const Op& op : ops) {
      LogLine(op.comm->device, "NCCL INFO simulated hang: this all-reduce never completes");
      op.comm->hung_streams.push_back(op.stream);
    }
  } else if (!data_done) {
    std::vector<nvsim::DevicePlace> sends;
    for (const Op& op : ops) sends.push_back(op.send);
    auto cache = std::make_shared<SumCache>();
    const int wrong_rank = static_cast<int>(m.Number("allreduce/wrong_sum_rank"));
    const bool wrong_unless_off = m.String("allreduce/wrong_sum") == "unless_p2p_disabled";
    for (const Op& op : ops) {
      const bool wrong = op.comm->rank == wrong_rank && (!wrong_unless_off || !p2p_off);
      nvsim::WriteLazy(op.receive, bytes, std::make_shared<SumProducer>(sends, cache, op.count / 3, wrong));
    }
  }
  std::vector<nvsim::Stream*> streams;
  for (const Op& op : ops) streams.push_back(op.stream);
  std::lock_guard<std::mutex> lock(nvsim::TimeLock());
  nvsim::EnqueueTogetherLocked(streams.data(), static_cast<int>(streams.size()), seconds, nvsim::Work::Collective, hangs);
}

}  // namespace ncclsim

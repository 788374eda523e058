#include "gpu/collective/allreduce_math.h"

namespace labcheck::gpu {

double AllReduceBusFactor(int ranks) { return ranks > 1 ? 2.0 * (ranks - 1) / ranks : 0.0; }

double AlgorithmBandwidthGbps(size_t bytes, double time_ms) {
  return time_ms > 0 ? static_cast<double>(bytes) / (time_ms * 1e-3) / 1e9 : 0;
}

std::optional<double> BusBandwidthGbps(size_t bytes, double time_ms, int ranks) {
  if (ranks < 2) return std::nullopt;
  return AlgorithmBandwidthGbps(bytes, time_ms) * AllReduceBusFactor(ranks);
}

std::optional<NcclTestsFigures> NcclTestsFiguresFor(size_t bytes, const std::vector<double>& host_times_us, int ranks) {
  if (host_times_us.empty()) return std::nullopt;
  double sum = 0;
  for (double t : host_times_us) {
    if (!(t > 0)) return std::nullopt;  // a process without the figure: no average to take
    sum += t;
  }
  NcclTestsFigures f;
  f.time_us = sum / static_cast<double>(host_times_us.size());
  f.algbw_gbps = AlgorithmBandwidthGbps(bytes, f.time_us / 1e3);
  f.busbw_gbps = BusBandwidthGbps(bytes, f.time_us / 1e3, ranks);
  return f;
}

std::vector<size_t> AllReduceSizes(size_t min_bytes, size_t max_bytes) {
  std::vector<size_t> sizes;
  for (size_t s = min_bytes; s > 0 && s <= max_bytes; s *= 2) sizes.push_back(s);
  return sizes;
}

float AllReduceInput(int rank, size_t index) {
  index %= kAllReducePeriod;
  uint64_t mixed = (static_cast<uint64_t>(index) * 2654435761u) ^ (static_cast<uint64_t>(rank + 1) * 40503u);
  return static_cast<float>(static_cast<int>((mixed >> 7) % 17) - 8);
}

float AllReduceExpected(int world_size, size_t index) {
  int sum = 0;  // integer sum: exact, and the float it converts to is exact too
  for (int r = 0; r < world_size; ++r) sum += static_cast<int>(AllReduceInput(r, index));
  return static_cast<float>(sum);
}

}  // namespace labcheck::gpu

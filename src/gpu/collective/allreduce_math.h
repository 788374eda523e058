// The all-reduce arithmetic, as nccl-tests defines it (doc/PERFORMANCE.md there):
// algbw = bytes / time; busbw = algbw × 2(n−1)/n, the traffic each rank's link really carries in
// a ring, so figures for 2 and 4 GPUs compare with each other and with the link's speed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace labcheck::gpu {

// 2(n−1)/n; 0 for one rank: nothing crosses a link, so busbw has no meaning (not "zero speed").
double AllReduceBusFactor(int ranks);
double AlgorithmBandwidthGbps(size_t bytes, double time_ms);
// nullopt for one rank.
std::optional<double> BusBandwidthGbps(size_t bytes, double time_ms, int ranks);

// A size's figures as nccl-tests' all_reduce_perf prints them (src/common.cu there): its time is
// the host clock around the loop of iterations, up to the stream synchronise, per iteration,
// averaged over its processes; algbw and busbw follow from that time as above.
struct NcclTestsFigures {
  double time_us = 0;
  double algbw_gbps = 0;
  std::optional<double> busbw_gbps;  // none for one rank
};
// `host_times_us`: one per process (nccl-tests' MPI_Allreduce of the time, sum / count).
std::optional<NcclTestsFigures> NcclTestsFiguresFor(size_t bytes, const std::vector<double>& host_times_us, int ranks);

// 1 MiB, 2 MiB, … up to `max_bytes` (doubling), the sizes nccl-tests' `-b 1M -e X -f 2` runs.
std::vector<size_t> AllReduceSizes(size_t min_bytes, size_t max_bytes);

// Rank r's input element i: a small integer (−8 … 8) as float32. Sums of up to 2^20 of them are
// exact in float32 whatever order NCCL adds them in, so the check can be bit-exact.
// The pattern repeats every kAllReducePeriod elements, so the host makes one period of inputs per
// rank and one of expected sums instead of computing every element of a 1 GiB sweep (half a
// billion values, seconds of host time per run). The period is prime: NCCL's chunks and
// channels split buffers at powers of two, so a piece written to the wrong place does not land
// on an identical copy of itself.
inline constexpr size_t kAllReducePeriod = 1048573;
float AllReduceInput(int rank, size_t index);
float AllReduceExpected(int world_size, size_t index);

}  // namespace labcheck::gpu

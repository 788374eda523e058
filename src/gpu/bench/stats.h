// Small statistics for repeated timings: medians resist the odd slow repeat (a context switch,
// a clock change) better than means, and that is what nccl-tests' readers expect too.
#pragma once
#include <vector>

namespace labcheck::gpu {

struct Sampled {
  double median = 0;
  double min = 0;
  double max = 0;
  int count = 0;
  // Coefficient of variation (sample standard deviation / mean); 0 for fewer than two values.
  double cv = 0;
};

Sampled Summarise(std::vector<double> values);  // empty input gives count 0

// Spread between cards measuring the same thing: (max − min) / max, 0 for fewer than two values.
double SpreadFraction(const std::vector<double>& values);

// 10^9 bytes per second from bytes moved and milliseconds.
inline double GigabytesPerSecond(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }
// 10^12 FLOP per second from FLOPs and milliseconds.
inline double TeraflopsPerSecond(double flops, double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0; }

}  // namespace labcheck::gpu

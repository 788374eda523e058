#include "gpu/bench/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace labcheck::gpu {

Sampled Summarise(std::vector<double> values) {
  Sampled s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  s.count = static_cast<int>(n);
  s.min = values.front();
  s.max = values.back();
  s.median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  if (n >= 2) {
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
    double sum_sq = 0;
    for (double v : values) sum_sq += (v - mean) * (v - mean);
    if (mean > 0) s.cv = std::sqrt(sum_sq / static_cast<double>(n - 1)) / mean;
  }
  return s;
}

double SpreadFraction(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *hi > 0 ? (*hi - *lo) / *hi : 0;
}

}  // namespace labcheck::gpu

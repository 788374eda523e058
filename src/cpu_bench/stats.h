// Summaries of repeated timings. The median is what the report shows (robust to one preempted
// pass); the best is shown beside it, as STREAM reports it.
#pragma once
#include <algorithm>
#include <vector>

namespace labcheck::cpu_bench {

// Median of the values; 0 for none. Even counts average the middle two.
inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

inline double Max(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

// Work per second for each timing: rates[i] = amount / seconds[i], in the amount's unit.
inline std::vector<double> Rates(double amount, const std::vector<double>& seconds) {
  std::vector<double> rates;
  for (double s : seconds) {
    if (s > 0) rates.push_back(amount / s);
  }
  return rates;
}

}  // namespace labcheck::cpu_bench

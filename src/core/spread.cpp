#include "core/spread.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace labcheck {

Trust TrustOf(const Spread& s) {
  if (s.repeats < kFewRepeats) return Trust::FewRepeats;
  // Half the range bounds the standard deviation from above: judging on it without a CV errs
  // towards "noisy", never towards "stable".
  double scatter = 0;
  if (s.cv) {
    scatter = *s.cv;
  } else if (s.median > 0) {
    scatter = (s.max - s.min) / (2 * s.median);
  }
  if (scatter <= kStableCv) return Trust::Stable;
  if (s.machine_busy) return Trust::NoisyMachineBusy;
  return scatter <= kNoisyCv ? Trust::SomeScatter : Trust::Noisy;
}

Text TrustWord(Trust trust) {
  switch (trust) {
    case Trust::Stable: return T("стабильно", "stable");
    case Trust::SomeScatter: return T("есть разброс", "some scatter");
    case Trust::Noisy: return T("шумно", "noisy");
    case Trust::NoisyMachineBusy: return T("шумно: машина занята", "noisy: machine busy");
    case Trust::FewRepeats: return T("мало повторов", "few repeats");
  }
  return Text("?");
}

const char* TrustId(Trust trust) {
  switch (trust) {
    case Trust::Stable: return "stable";
    case Trust::SomeScatter: return "some_scatter";
    case Trust::Noisy: return "noisy";
    case Trust::NoisyMachineBusy: return "noisy_machine_busy";
    case Trust::FewRepeats: return "few_repeats";
  }
  return "?";
}

Spread SpreadOfValues(const std::vector<double>& values, bool machine_busy) {
  Spread s;
  s.machine_busy = machine_busy;
  if (values.empty()) return s;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.repeats = static_cast<int>(n);
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n >= 2 && mean > 0) {
    double sum_sq = 0;
    for (double v : sorted) sum_sq += (v - mean) * (v - mean);
    s.cv = std::sqrt(sum_sq / static_cast<double>(n - 1)) / mean;  // sample standard deviation
  }
  return s;
}

Spread SpreadOfRate(double median_rate, double median_ms, double min_ms, double max_ms, int repeats,
                    std::optional<double> cv_of_times) {
  Spread s;
  s.repeats = repeats;
  s.median = median_rate;
  s.min = max_ms > 0 ? median_rate * median_ms / max_ms : median_rate;
  s.max = min_ms > 0 ? median_rate * median_ms / min_ms : median_rate;
  s.cv = cv_of_times;
  return s;
}

}  // namespace labcheck

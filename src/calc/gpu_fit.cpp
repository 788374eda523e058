#include "calc/gpu_fit.h"

#include <algorithm>

#include "calc/byte_units.h"

namespace labcheck::calc {

std::vector<GpuFit> FitOnGpus(const std::vector<reference::GpuSpec>& gpus,
                              const std::function<double(int)>& need_per_gpu) {
  static constexpr int kCounts[] = {1, 2, 4, 8};
  std::vector<double> need;
  for (int count : kCounts) need.push_back(need_per_gpu(count));
  std::vector<GpuFit> fits;
  for (const reference::GpuSpec& gpu : gpus) {
    GpuFit fit{gpu.id, gpu.name, gpu.memory_gib, std::nullopt, need.back()};
    for (size_t i = 0; i < need.size(); ++i) {
      if (need[i] <= gpu.memory_gib * kBytesPerGiB) {
        fit.count = kCounts[i];
        fit.per_gpu_bytes = need[i];
        break;
      }
    }
    fits.push_back(fit);
  }
  // Fewest cards first, then the smallest card that does it: the cheapest rental first.
  std::stable_sort(fits.begin(), fits.end(), [](const GpuFit& a, const GpuFit& b) {
    const int ca = a.count.value_or(99), cb = b.count.value_or(99);
    return ca != cb ? ca < cb : a.memory_gib < b.memory_gib;
  });
  return fits;
}

}  // namespace labcheck::calc

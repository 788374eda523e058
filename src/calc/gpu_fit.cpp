#include "calc/gpu_fit.h"

#include <algorithm>
#include <future>

#include "calc/byte_units.h"

namespace labcheck::calc {

std::vector<GpuFit> FitOnGpus(const std::vector<reference::GpuSpec>& gpus,
                              const std::function<double(int)>& need_per_gpu,
                              const std::function<double(const reference::GpuSpec&)>& capacity) {
  static constexpr int kCounts[] = {1, 2, 4, 8};
  // Each count's need replays the step through the allocator several times (reserved_replay.h);
  // the four are independent and run side by side.
  std::vector<std::future<double>> pending;
  for (int count : kCounts) pending.push_back(std::async(std::launch::async, need_per_gpu, count));
  std::vector<double> need;
  for (std::future<double>& f : pending) need.push_back(f.get());
  std::vector<GpuFit> fits;
  for (const reference::GpuSpec& gpu : gpus) {
    GpuFit fit{gpu.id, gpu.DisplayName(), gpu.memory_gib, std::nullopt, need.back()};
    const double has = capacity ? capacity(gpu) : gpu.memory_gib * kBytesPerGiB;
    for (size_t i = 0; i < need.size(); ++i) {
      if (need[i] <= has) {
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

std::vector<GpuFitGroup> GroupByMemorySize(const std::vector<GpuFit>& fits) {
  std::vector<GpuFitGroup> groups;
  for (const GpuFit& fit : fits) {
    const bool same_as_last = !groups.empty() && groups.back().memory_gib == fit.memory_gib &&
                              groups.back().count == fit.count && groups.back().per_gpu_bytes == fit.per_gpu_bytes;
    if (!same_as_last) groups.push_back(GpuFitGroup{fit.memory_gib, fit.count, fit.per_gpu_bytes, {}});
    groups.back().gpu_names.push_back(fit.gpu_name);
  }
  return groups;
}

}  // namespace labcheck::calc

// "Which card should I rent": the reference GPUs a training job fits on, and how many of each.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {

struct GpuFit {
  std::string gpu_id;
  Text gpu_name;  // as each report language shows it (GpuSpec::DisplayName)
  double memory_gib = 0;
  std::optional<int> count;       // fewest cards it fits on; nullopt: not within max_count
  double per_gpu_bytes = 0;       // need per card at that count (or on max_count cards)
};

// `need_per_gpu(n)` is the memory one card needs when the job is split over n cards (called for
// the four counts at once, from threads of their own: it must be safe to);
// `capacity(gpu)` what such a card has to give (its nominal size unless told otherwise).
// Counts tried: 1, 2, 4, 8 (what servers carry).
std::vector<GpuFit> FitOnGpus(const std::vector<reference::GpuSpec>& gpus,
                              const std::function<double(int)>& need_per_gpu,
                              const std::function<double(const reference::GpuSpec&)>& capacity = nullptr);

// Cards of one memory size answer "which card to rent" alike: the same count, the same need per
// card. The catalog has 29 cards in 9 sizes; one row per size keeps the answer on a screen.
struct GpuFitGroup {
  double memory_gib = 0;
  std::optional<int> count;
  double per_gpu_bytes = 0;
  std::vector<Text> gpu_names;  // in the catalog's order
};

// `fits` as FitOnGpus sorts them (fewest cards, then smallest card), so equal sizes are adjacent.
std::vector<GpuFitGroup> GroupByMemorySize(const std::vector<GpuFit>& fits);

}  // namespace labcheck::calc

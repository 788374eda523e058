#include "calc/bare_size_range.h"

#include <algorithm>
#include <cmath>

#include "calc/training_memory.h"
#include "core/units.h"

namespace labcheck::calc {
namespace {

// Shapes within this factor of the asked size stand in for it; memory scales about linearly with
// the parameter count at fixed tokens (weights, states, and activations through width x depth).
constexpr double kSizeFactor = 1.6;
constexpr size_t kFallbackShapes = 2;

}  // namespace

std::optional<SizeRange> BareSizeRange(const ModelInput& model, const TrainingSettings& s, const ModelCatalog& catalog,
                                       const CalcConstants& k) {
  if (model.arch || model.bare_params <= 0) return std::nullopt;
  const double n = static_cast<double>(model.bare_params);
  struct Candidate {
    const CatalogModel* model;
    double ratio;  // |log(size / n)|
  };
  std::vector<Candidate> candidates;
  for (const CatalogModel& m : catalog.models()) {
    if (m.arch.moe.enabled() || m.arch.vision.present()) continue;  // dense text decoders only
    ModelInput input{m.name, m.hf_repo, m.config_source, m.arch, 0};
    candidates.push_back({&m, std::fabs(std::log(static_cast<double>(input.total_params()) / n))});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.ratio < b.ratio; });
  std::vector<Candidate> chosen;
  for (const Candidate& c : candidates) {
    if (c.ratio <= std::log(kSizeFactor)) chosen.push_back(c);
  }
  if (chosen.empty()) chosen.assign(candidates.begin(), candidates.begin() + std::min(kFallbackShapes, candidates.size()));
  if (chosen.empty()) return std::nullopt;
  SizeRange range;
  bool first = true;
  const double context = k.cuda_context_gib * kBytesPerGiB;
  for (const Candidate& c : chosen) {
    ModelInput input{c.model->name, c.model->hf_repo, c.model->config_source, c.model->arch, 0};
    const TrainingMemory m = EstimateTrainingMemory(input, s, k);
    if (!m.peak_allocated_bytes) continue;
    const double scale = n / static_cast<double>(input.total_params());
    const double allocated = *m.peak_allocated_bytes * scale;
    const double total = allocated * (1 + k.allocator_reserve_fraction) + context;
    if (first || total < range.low_bytes) range.low_bytes = total, range.low_allocated = allocated;
    if (first || total > range.high_bytes) range.high_bytes = total, range.high_allocated = allocated;
    first = false;
    range.shapes.push_back(c.model->name);
  }
  if (first) return std::nullopt;
  return range;
}

}  // namespace labcheck::calc

#include "calc/reserved_margin.h"

#include <cmath>

#include <fmt/format.h>

#include "calc/byte_units.h"

namespace labcheck::calc {
namespace {

int PercentAbove(double ratio) { return static_cast<int>(std::lround((ratio - 1) * 100)); }

}  // namespace

bool Fsdp1MarginApplies(const TrainingSettings& s) {
  return s.sharding == Sharding::Fsdp && s.fsdp_version == 1 && s.reshard_after_forward && s.gpus > 1;
}

std::optional<ReservedMargin> PublishedReservedMargin(const TrainingSettings& s, const TrainingMemory& memory,
                                                      const CalcConstants& k) {
  if (!Fsdp1MarginApplies(s)) return std::nullopt;
  if (!memory.peak_total_bytes || k.fsdp1_reserved_runs == 0) return std::nullopt;
  const MemoryComponent* context = memory.Find("cuda_context");
  const double context_bytes = context && context->bytes ? *context->bytes : 0;
  // The published figures are max_memory_reserved: the total per GPU without the CUDA context.
  const double reserved = *memory.peak_total_bytes - context_bytes;
  return ReservedMargin{k.fsdp1_reserved_runs, k.fsdp1_reserved_ratio_median, k.fsdp1_reserved_ratio_max,
                        reserved * k.fsdp1_reserved_ratio_max + context_bytes};
}

Text ReservedMarginNote(const ReservedMargin& m, const CalcConstants& k) {
  const int median = PercentAbove(m.ratio_median);
  const int most = PercentAbove(m.ratio_max);
  const int cache = static_cast<int>(std::lround(k.allocator_reserve_fraction * 100));
  const std::string at_max = FormatGiBAndGB(m.per_gpu_at_max);
  return T(fmt::format("Под FSDP1 заложите запас: все {} опубликованных запусков FSDP1, с которыми сверялась оценка, зарезервировали "
                       "больше неё — на {} % по медиане, до {} % (аллокатор PyTorch держит кэш по CUDA-потокам и сегментам; в оценке — "
                       "ровные {} %). С наибольшим замеченным запасом: {} на GPU (docs/calculators.md).",
                       m.runs, median, most, cache, at_max),
           fmt::format("Leave headroom under FSDP1: all {} published FSDP1 runs this estimate was checked against reserved more than it, "
                       "{} % at the median and up to {} % (PyTorch's allocator caches per CUDA stream and per segment; the estimate "
                       "counts a flat {} %). With the largest margin seen: {} per GPU (docs/calculators.md).",
                       m.runs, median, most, cache, at_max));
}

nlohmann::json ReservedMarginJson(const std::optional<ReservedMargin>& m) {
  if (!m) return nullptr;
  return {{"runs", m->runs},
          {"ratio_median", m->ratio_median},
          {"ratio_max", m->ratio_max},
          {"per_gpu_at_max", BytesJson(m->per_gpu_at_max)}};
}

}  // namespace labcheck::calc

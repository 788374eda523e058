#include "calc/reserved_replay.h"

#include <fmt/format.h>

#include "calc/allocator/replay.h"
#include "calc/allocator/training_trace.h"
#include "calc/byte_units.h"

namespace labcheck::calc {
namespace {

// Room to spare: the replay then shows what the run reserves when nothing forces the cache out.
constexpr double kUnconstrainedBytes = 1e18;

double OutsideAllocatorBytes(int gpus, const CalcConstants& k) {
  return (k.cuda_context_gib + (gpus > 1 ? k.nccl_buffers_gib : 0)) * kBytesPerGiB;
}

}  // namespace

CardMemory CardFor(const std::string& id, double nominal_gib, int gpus, const CalcConstants& k) {
  CardMemory card;
  card.id = id;
  const auto cited = k.cuda_total_capacity_gib.find(id);
  card.total_from_source = cited != k.cuda_total_capacity_gib.end();
  card.total_bytes = (card.total_from_source ? cited->second : nominal_gib) * kBytesPerGiB;
  card.limit_bytes = std::max(0.0, card.total_bytes - OutsideAllocatorBytes(gpus, k));
  return card;
}

Result<allocator::AllocatorConfig> AllocConfFrom(const std::string& text) {
  return allocator::ParseAllocConf(text, allocator::AllocatorConstants::Builtin());
}

TrainingReplayer::TrainingReplayer(const ModelInput& model, const TrainingSettings& s, const CalcConstants& k,
                                   const allocator::AllocatorConfig& config)
    : trace_(allocator::TrainingTrace(model, s, k)), config_(config), outside_allocator_(OutsideAllocatorBytes(s.gpus, k)) {}

ReservedReplay TrainingReplayer::Replay(const std::optional<CardMemory>& card) const {
  ReservedReplay r;
  r.alloc_conf = config_.text;
  r.outside_allocator = outside_allocator_;
  if (!trace_.ok()) {
    r.not_modelled = trace_.status().message();
    return r;
  }
  r.modelled = true;
  r.framework = trace_->framework;
  const double total = card ? card->total_bytes : kUnconstrainedBytes;
  const allocator::ReplayResult free_run = allocator::Replay(*trace_, config_, {UINT64_MAX, static_cast<uint64_t>(total)});
  r.reserved_peak = static_cast<double>(free_run.reserved_peak);
  r.allocated_peak = static_cast<double>(free_run.allocated_peak);
  r.reserved_after_load = static_cast<double>(free_run.reserved_before_reset);
  r.reserved_stage = free_run.reserved_peak_stage;
  r.allocated_stage = free_run.allocated_peak_stage;
  if (card) {
    const allocator::ReplayResult on = allocator::Replay(
        *trace_, config_, {static_cast<uint64_t>(card->limit_bytes), static_cast<uint64_t>(card->total_bytes)});
    r.on_card = CardReplay{*card, on.completed, on.oom_stage, static_cast<double>(on.reserved_peak), on.alloc_retries};
  }
  return r;
}

std::optional<bool> TrainingReplayer::Fits(const CardMemory& card) const {
  if (!trace_.ok()) return std::nullopt;
  return allocator::Replay(*trace_, config_, {static_cast<uint64_t>(card.limit_bytes), static_cast<uint64_t>(card.total_bytes)}).completed;
}

double NeedFromReplay(const ReservedReplay& replay, const TrainingMemory& memory) {
  if (!replay.modelled) return memory.peak_total_bytes.value_or(memory.known_bytes);
  return replay.reserved_peak + replay.outside_allocator;
}

nlohmann::json ReservedReplayJson(const ReservedReplay& r) {
  nlohmann::json j = {{"modelled", r.modelled}, {"alloc_conf", r.alloc_conf}};
  if (!r.modelled) {
    j["not_modelled"] = r.not_modelled;
    return j;
  }
  j["framework"] = r.framework;
  j["reserved_peak"] = BytesJson(r.reserved_peak);
  j["reserved_peak_stage"] = r.reserved_stage;
  j["allocated_peak"] = BytesJson(r.allocated_peak);
  j["allocated_peak_stage"] = r.allocated_stage;
  j["reserved_after_load"] = BytesJson(r.reserved_after_load);
  j["outside_allocator"] = BytesJson(r.outside_allocator);
  if (r.on_card) {
    const CardReplay& c = *r.on_card;
    j["card"] = {{"id", c.card.id},
                 {"total", BytesJson(c.card.total_bytes)},
                 {"total_from_source", c.card.total_from_source},
                 {"allocator_limit", BytesJson(c.card.limit_bytes)},
                 {"fits", c.fits},
                 {"oom_stage", c.fits ? nlohmann::json(nullptr) : nlohmann::json(c.oom_stage)},
                 {"reserved_peak", BytesJson(c.reserved_peak)},
                 {"cache_flushes", c.cache_flushes}};
  }
  return j;
}

Text ReservedReplayLine(const ReservedReplay& r) {
  if (!r.modelled) {
    return T(fmt::format("Кэш аллокатора — ровная доля пика: шаг для этих настроек не воспроизводится через модель аллокатора ({}).", r.not_modelled),
             fmt::format("The allocator cache is a flat share of the peak: no step trace is modelled for these settings ({}).", r.not_modelled));
  }
  const std::string reserved = FormatGiBAndGB(r.reserved_peak);
  return T(fmt::format("Зарезервирует аллокатор PyTorch (torch.cuda.max_memory_reserved, шаг через модель аллокатора): {}, пик — {}.",
                       reserved, r.reserved_stage),
           fmt::format("PyTorch's allocator reserves (torch.cuda.max_memory_reserved, the step replayed through the allocator's rules): {}, at {}.",
                       reserved, r.reserved_stage));
}

}  // namespace labcheck::calc

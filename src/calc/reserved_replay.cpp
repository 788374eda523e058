#include "calc/reserved_replay.h"

#include <fmt/format.h>

#include <string_view>

#include "calc/allocator/replay.h"
#include "calc/allocator/training_trace.h"
#include "calc/byte_units.h"

namespace labcheck::calc {
namespace {

// Room to spare: the replay then shows what the run reserves when nothing forces the cache out.
constexpr double kUnconstrainedBytes = 1e18;
constexpr int kBisections = 8;
constexpr double kNeedPrecisionBytes = 16.0 * 1024 * 1024;

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
  r.need = LeastLimit(free_run);
  if (card) r.on_card = OnCard(*card);
  return r;
}

std::optional<CardReplay> TrainingReplayer::OnCard(const CardMemory& card) const {
  if (!trace_.ok()) return std::nullopt;
  const allocator::ReplayResult on =
      allocator::Replay(*trace_, config_, {static_cast<uint64_t>(card.limit_bytes), static_cast<uint64_t>(card.total_bytes)});
  return CardReplay{card, on.completed, on.oom_stage, static_cast<double>(on.reserved_peak), on.alloc_retries};
}

std::optional<allocator::SnapshotComparison> TrainingReplayer::Compare(const allocator::SnapshotFigures& measured) const {
  if (!trace_.ok()) return std::nullopt;
  allocator::ReplayLimits limits;
  limits.snapshot = true;
  const allocator::ReplayResult run = allocator::Replay(*trace_, config_, limits);
  allocator::SnapshotFigures replay = allocator::FiguresOf(run.segments_at_end);
  replay.max_reserved = run.reserved_peak;
  replay.max_allocated = run.allocated_peak;
  return allocator::SnapshotComparison{replay, measured};
}

std::optional<bool> TrainingReplayer::CompletesWithin(double limit) const {
  if (!trace_.ok()) return std::nullopt;
  return allocator::Replay(*trace_, config_, {static_cast<uint64_t>(limit), static_cast<uint64_t>(limit + outside_allocator_)}).completed;
}

// Bisection between the allocated peak (never enough) and the reserved peak with room to spare
// (always enough: the run is the same), to a 128th of the gap.
double TrainingReplayer::LeastLimit(const allocator::ReplayResult& free_run) const {
  double low = static_cast<double>(free_run.allocated_peak), high = static_cast<double>(free_run.reserved_peak);
  for (int i = 0; i < kBisections && high - low > kNeedPrecisionBytes; ++i) {
    const double middle = (low + high) / 2;
    if (*CompletesWithin(middle)) high = middle;
    else low = middle;
  }
  return high;
}

void ApplyReplay(TrainingMemory& m, const ReservedReplay& r, int gpus, const CalcConstants& k) {
  if (!r.modelled || !m.peak_allocated_bytes) return;
  std::vector<MemoryComponent> kept;
  for (MemoryComponent& c : m.components) {
    if (c.id == "offload_copy_cache" || c.id == "fsdp2_stream_pools") continue;
    if (c.id == "allocator_reserve") {
      c.bytes = std::max(0.0, r.need - *m.peak_allocated_bytes);
      c.label = T("Резерв аллокатора PyTorch", "PyTorch allocator reserve");
      c.note = T(fmt::format("шаг через правила аллокатора: наименьшее, с чем он проходит, минус пик; без ограничения зарезервирует {}",
                             FormatGiBAndGB(r.reserved_peak)),
                 fmt::format("the step through the allocator's rules: the least it completes in, less the peak; with room to spare it reserves {}",
                             FormatGiBAndGB(r.reserved_peak)));
    }
    kept.push_back(std::move(c));
  }
  if (gpus > 1) {
    kept.push_back({"nccl_buffers", T("Буферы NCCL", "NCCL buffers"), k.nccl_buffers_gib * kBytesPerGiB,
                    T("буферы протоколов NCCL по умолчанию, вне аллокатора PyTorch (порядок величины, не измерено)",
                      "NCCL's default protocol buffers, outside PyTorch's allocator (an order of magnitude, not measured)"),
                    MemoryPhase::OutsideAllocator});
  }
  m.components = std::move(kept);
  m.peak_total_bytes = r.need + r.outside_allocator;
}

double NeedFromReplay(const ReservedReplay& replay, const TrainingMemory& memory) {
  if (!replay.modelled) return memory.peak_total_bytes.value_or(memory.known_bytes);
  return replay.need + replay.outside_allocator;
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
  j["need"] = BytesJson(r.need);
  j["outside_allocator"] = BytesJson(r.outside_allocator);
  if (r.snapshot) j["snapshot_comparison"] = allocator::SnapshotComparisonJson(*r.snapshot);
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

// The trace's stage names (step_program.cpp, fsdp1_params.cpp) in both languages.
Text StageText(const std::string& en) {
  static const std::pair<const char*, const char*> kWords[] = {
      {"final norm and loss", "финальная норма и loss"}, {"loss backward", "backward loss"}, {"optimizer step", "шаг оптимизатора"},
      {"forward, layer", "forward, слой"}, {"backward, layer", "backward, слой"}, {"FSDP wrap", "обёртка FSDP"},
      {"loop start", "начало цикла"}, {"load", "загрузка"}, {"step", "шаг"}};
  std::string ru = en;
  for (const auto& [from, to] : kWords) {
    const size_t at = ru.find(from);
    if (at != std::string::npos) ru.replace(at, std::string(from).size(), to);
  }
  return Text(ru, en);
}

// The trace's reasons for not modelling (trace_shapes.cpp) and its loops (training_trace.cpp), which
// the allocator model words in English, in both languages.
Text ReplayWords(const std::string& en) {
  static const std::pair<const char*, const char*> kWhole[] = {
      {"no architecture (a bare size)", "нет архитектуры (голый размер)"},
      {"MoE layers (routed experts)", "слои MoE (маршрутизируемые эксперты)"},
      {"multi-head latent attention", "multi-head latent attention (MLA)"},
      {"state-space (Mamba) layers", "слои пространства состояний (Mamba)"},
      {"a vision tower", "визуальная башня"},
      {"gated attention output", "гейт на выходе внимания"},
      {"four norms per layer", "четыре нормы на слой"},
      {"activation offload", "выгрузка активаций"},
      {"optimizer offload (ZeRO-Offload)", "выгрузка оптимизатора (ZeRO-Offload)"},
      {"FP32 master weights under autocast", "FP32-мастер-веса под autocast"},
      {"expert parallelism", "параллелизм экспертов"},
      {"parameter offload on one GPU", "выгрузка параметров на одной GPU"},
      {"FSDP without resharding after forward (SHARD_GRAD_OP)", "FSDP без решардинга после forward (SHARD_GRAD_OP)"},
      {"the optimizer in backward under FSDP", "оптимизатор в backward под FSDP"},
      {"FSDP1 with a prefetch other than BACKWARD_PRE's one unit", "FSDP1 с предвыборкой, отличной от одного блока BACKWARD_PRE"},
      {"one GPU: weights on the GPU, HF Trainer's loop", "одна GPU: веса на GPU, цикл HF Trainer"},
      {"FSDP1 as fsdp_qlora's train.py runs it", "FSDP1, как его запускает train.py из fsdp_qlora"},
      {"FSDP1 as accelerate's FSDP plugin runs it under HF Trainer", "FSDP1, как его запускает FSDP-плагин accelerate под HF Trainer"},
      {"FSDP2 as torchtune's distributed recipes run it", "FSDP2, как его запускают распределённые рецепты torchtune"}};
  for (const auto& [from, to] : kWhole) {
    if (en == from) return Text(to, en);
  }
  static const std::pair<std::string_view, const char*> kEnds[] = {{" over several GPUs", " на нескольких GPU"}, {" on one GPU", " на одной GPU"}};
  for (const auto& [end, to] : kEnds) {
    if (en.size() > end.size() && en.compare(en.size() - end.size(), end.size(), end) == 0) return Text(en.substr(0, en.size() - end.size()) + to, en);
  }
  return Text(en, en);
}

Text ReservedReplayLine(const ReservedReplay& r) {
  if (!r.modelled) {
    const Text why = ReplayWords(r.not_modelled);
    return T(fmt::format("Кэш аллокатора — ровная доля пика: шаг для этих настроек не воспроизводится через модель аллокатора ({}).", why.ru),
             fmt::format("The allocator cache is a flat share of the peak: no step trace is modelled for these settings ({}).", why.en));
  }
  const std::string reserved = FormatGiBAndGB(r.reserved_peak);
  const Text stage = StageText(r.reserved_stage);
  const Text loop = ReplayWords(r.framework);
  return T(fmt::format("Зарезервирует аллокатор PyTorch, если памяти с запасом (torch.cuda.max_memory_reserved, шаг через модель аллокатора; {}): {}, пик — «{}».",
                       loop.ru, reserved, stage.ru),
           fmt::format("PyTorch's allocator reserves, with room to spare (torch.cuda.max_memory_reserved, the step replayed through the allocator's rules; {}): {}, at \"{}\".",
                       loop.en, reserved, stage.en));
}

}  // namespace labcheck::calc

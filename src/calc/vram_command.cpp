// lab_check vram MODEL --method full|lora|qlora ...: the memory of a training step, the lesson's
// rule of thumb beside it, and the reference GPUs the job fits on.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>

#include <map>
#include <memory>
#include <numeric>
#include <optional>

#include "calc/bare_size_range.h"
#include "calc/expert_parallel.h"
#include "calc/byte_units.h"
#include "calc/gpu_fit.h"
#include "calc/host_ram_check.h"
#include "calc/machine_report.h"
#include "calc/model_features.h"
#include "calc/reserved_replay.h"
#include "calc/rule_of_thumb.h"
#include "calc/subcommands.h"
#include "calc/training_memory.h"
#include "calc/training_options.h"
#include "core/text_util.h"
#include "reference/gpu_catalog.h"
#include "report/display_width.h"

namespace labcheck::calc {
namespace {

struct VramOptions {
  std::string model;
  TrainingOptions training;
  std::string gpu;       // --gpu: the card the run is placed on (catalog id)
  double gpu_mem = 0;    // --gpu-mem: its memory in GiB, for a card outside the catalog
  std::string snapshot;  // --compare-snapshot: a real run's torch.cuda.memory._snapshot() to set the replay against
  bool json = false;
};

Text MethodTitle(Method method) {
  switch (method) {
    case Method::Full: return T("полное дообучение", "full fine-tuning");
    case Method::Lora: return T("LoRA (база в BF16)", "LoRA (BF16 base)");
    case Method::Qlora: return T("QLoRA (база в NF4)", "QLoRA (NF4 base)");
  }
  return {};
}

std::string SizeCell(const MemoryComponent& c, Lang lang) {
  if (!c.bytes) return T("нужна архитектура", "needs the architecture").In(lang);
  std::string cell = FormatGiBAndGB(*c.bytes);
  if (c.phase == MemoryPhase::Paged) cell += T(" (paged, вне пика)", " (paged, not in the peak)").In(lang);
  if (c.phase == MemoryPhase::Cpu) cell += T(" (в RAM)", " (CPU RAM)").In(lang);
  return cell;
}

// Which kernels the state layers' activations follow (state_layer_activations.h).
WorkNote StateLayerActivationsNote(const Architecture& a) {
  const char* ru = "";
  const char* en = "";
  switch (a.mamba.kind) {
    case StateLayerKind::Mamba1:
      ru = "активации слоёв Mamba — по быстрому пути transformers (JambaMambaMixer: causal_conv1d_fn и selective_scan_fn из mamba_ssm), с тем, что эти ядра сохраняют для backward";
      en = "Mamba layers' activations follow transformers' fast path (JambaMambaMixer: causal_conv1d_fn and mamba_ssm's selective_scan_fn), with what those kernels save for backward";
      break;
    case StateLayerKind::Mamba2:
      ru = "активации блоков Mamba-2 — по пути обучения transformers без кэша (use_cache=False): mamba_split_conv1d_scan_combined хранит выход in_proj и выход скана; блоки MLP и внимания — каждый только своё";
      en = "Mamba-2 blocks' activations follow transformers' training path without a cache (use_cache=False): mamba_split_conv1d_scan_combined saves in_proj's output and the scan's output; MLP and attention blocks each only their own";
      break;
    case StateLayerKind::GatedDeltaNet:
      ru = "активации слоёв Gated DeltaNet — по пути transformers с ядрами fla (chunk_gated_delta_rule, FusedRMSNormGated) и causal_conv1d; гейт на выходе слоёв внимания учтён";
      en = "Gated DeltaNet layers' activations follow transformers' path with fla's kernels (chunk_gated_delta_rule, FusedRMSNormGated) and causal_conv1d; the attention layers' output gate is counted";
      break;
  }
  return {"state_layer_activations", T(std::string(ru) + "; запасные пути на чистом torch хранят больше и не посчитаны",
                                       std::string(en) + "; the pure-torch fallbacks save more and are not modelled")};
}

// Where the training estimate simplifies an architecture feature, it says so.
std::vector<WorkNote> VramAssumptions(const ModelInput& model, const TrainingSettings& s) {
  std::vector<WorkNote> notes;
  if (!model.arch) {
    notes.push_back({"size_only", T("только размер: форма модели взята у плотных моделей каталога", "size only: the model's shape is taken from the catalog's dense models")});
    return notes;
  }
  const Architecture& a = *model.arch;
  if (a.mla.enabled()) {
    notes.push_back({"mla_activations", T("активации MLA — как при обучении в transformers (DeepseekV3Attention): нормы латентов и входы q_b/kv_b, K и V распакованы для каждой головы, V шириной v_head_dim (с flash attention дополнен до ширины q/k, как и выход)",
                                          "MLA activations as transformers trains it (DeepseekV3Attention): the latents' norms and q_b/kv_b inputs, K and V decompressed per head, V at v_head_dim (padded to the q/k width under flash attention, and the output with it)")});
  }
  if (a.mamba.count() > 0) notes.push_back(StateLayerActivationsNote(a));
  if (a.ChunkedLayerCount() > 0) {
    notes.push_back({"chunked_activations", T("активации чанкового внимания (Llama 4) — как у полного: SDPA и flash хранят q, k, v, выход и log-sum-exp, от маски это не зависит; eager хранит матрицу оценок seq × seq на голову, хотя внутри чанка лишь её часть",
                                              "chunked attention's activations (Llama 4) as full attention's: SDPA and flash save q, k, v, the output and the log-sum-exp whatever the mask; eager saves the seq × seq scores per head, though only a chunk's part of them is used")});
  }
  const bool megablocks = s.moe_kernel == MoeKernel::MegaBlocks;
  if (a.moe.enabled()) {
    const Text copies = megablocks ? T("experts_per_token строк на токен в корзинах MegaBlocks (вход, gate_up, GLU и выход эксперта)",
                                       "experts_per_token rows per token in MegaBlocks' bins (input, gate_up, the GLU's tensors and the expert's output)")
                                   : T("experts_per_token копий эксперта на токен", "experts_per_token copies of an expert per token");
    const Text activations = T("активации слоя с экспертами — " + copies.ru + ", роутер и общие эксперты на каждом токене; плотные слои (first_k_dense_replace, mlp_only_layers) — как MLP своей ширины",
                               "activations of an expert layer: " + copies.en + ", the router and the shared experts on every token; dense layers (first_k_dense_replace, mlp_only_layers) as an MLP of their own width");
    notes.push_back({"moe_activations", s.expert_parallel > 1 ? activations
                                                              : T("веса, градиенты и состояния — всех экспертов; " + activations.ru,
                                                                  "weights, gradients and states of every expert; " + activations.en)});
  }
  return notes;
}

// Sharding left at its default: several cards are then counted with FSDP, not DDP copies.
bool ShardingGiven(const TrainingOptions& training) { return training.given.at("sharding")->count() > 0; }

struct VramEstimate {
  TrainingSettings settings;
  std::vector<DefaultTaken> defaults;
  TrainingMemory memory;
  std::optional<SizeRange> range;
  RuleOfThumb rule;
  std::vector<GpuFit> fits;
  std::vector<WorkNote> features;
  std::vector<WorkNote> assumptions;
  ReservedReplay replay;  // the step through the allocator's rules (reserved_replay.h)
};

// The settings of the job split over n cards (FSDP unless another sharding was asked for).
TrainingSettings SplitOver(const VramOptions& o, const VramEstimate& e, int n) {
  TrainingSettings split = e.settings;
  split.gpus = n;
  if (n > 1 && split.sharding == Sharding::Ddp && !ShardingGiven(o.training)) split.sharding = Sharding::Fsdp;
  // --expert-parallel on n cards: the largest EP group that n (and a hybrid group) can hold.
  split.expert_parallel = std::gcd(split.expert_parallel, n);
  if (split.sharding == Sharding::Hybrid) split.expert_parallel = std::gcd(split.expert_parallel, split.WeightShards());
  return split;
}

// Need per card when split over n cards: the least the step's replay completes in plus the CUDA
// context and NCCL, or the flat estimate where no trace is modelled, else the top of the bare
// size's range.
double NeedPerGpu(const ModelInput& model, const VramOptions& o, const VramEstimate& e, int n) {
  const CalcConstants& k = CalcConstants::Builtin();
  const TrainingSettings split = SplitOver(o, e, n);
  TrainingMemory m = EstimateTrainingMemory(model, split, k);
  const ReservedReplay replay = TrainingReplayer(model, split, k, AllocConfFrom(split.alloc_conf).value()).Replay();
  if (replay.modelled) return NeedFromReplay(replay, m);
  if (m.peak_total_bytes) return *m.peak_total_bytes;
  if (auto r = BareSizeRange(model, split, ModelCatalog::Builtin(), k)) return r->high_bytes;
  return e.rule.bytes.value_or(m.known_bytes * n) / n + k.cuda_context_gib * kBytesPerGiB;
}

// --compare-snapshot FILE, read and checked.
Result<allocator::SnapshotFigures> ReadSnapshotFile(const std::string& path, Lang lang) {
  std::ifstream in(path);
  if (!in) {
    return Status::Error(T(fmt::format("--compare-snapshot {}: файл не прочитать", path),
                           fmt::format("--compare-snapshot {}: cannot read the file", path)).In(lang));
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) {
    return Status::Error(T(fmt::format("--compare-snapshot {}: это не JSON", path), fmt::format("--compare-snapshot {}: not JSON", path)).In(lang));
  }
  auto figures = allocator::ReadSnapshot(j, lang);
  if (!figures.ok()) return Status::Error(fmt::format("--compare-snapshot {}: {}", path, figures.status().message()));
  return figures;
}

// --gpu / --gpu-mem: the card the replay places the run on.
std::optional<CardMemory> CardOf(const VramOptions& o, const TrainingSettings& s) {
  const CalcConstants& k = CalcConstants::Builtin();
  if (!o.gpu.empty()) {
    if (const reference::GpuSpec* gpu = reference::GpuCatalog::Builtin().FindById(o.gpu)) return CardFor(gpu->id, gpu->memory_gib, s.gpus, k);
  }
  if (o.gpu_mem > 0) return CardFor("", o.gpu_mem, s.gpus, k);
  return std::nullopt;
}

VramEstimate EstimateVram(const ModelInput& model, const VramOptions& o, const TrainingSettings& s,
                          const std::optional<allocator::SnapshotFigures>& measured) {
  const CalcConstants& k = CalcConstants::Builtin();
  VramEstimate e;
  e.settings = s;
  e.defaults = DefaultsTaken(o.training, s, model.arch && model.arch->moe.enabled());
  e.memory = EstimateTrainingMemory(model, s, k);
  const TrainingReplayer replayer(model, s, k, AllocConfFrom(s.alloc_conf).value());
  e.replay = replayer.Replay(CardOf(o, s));
  if (measured) e.replay.snapshot = replayer.Compare(*measured);
  ApplyReplay(e.memory, e.replay, s.gpus, k);
  e.range = BareSizeRange(model, s, ModelCatalog::Builtin(), k);
  // The lesson's rule is for one card; compare it with the one-card estimate.
  TrainingSettings one_gpu = s;
  one_gpu.gpus = 1;
  one_gpu.expert_parallel = 1;
  e.rule = LessonRuleOfThumb(model, one_gpu, EstimateTrainingMemory(model, one_gpu, k), k);
  // A card gives what its driver reports (cited totals, else the nominal size).
  e.fits = FitOnGpus(reference::GpuCatalog::Builtin().gpus(), [&](int n) { return NeedPerGpu(model, o, e, n); },
                     [&](const reference::GpuSpec& gpu) { return CardFor(gpu.id, gpu.memory_gib, 1, k).total_bytes; });
  e.features = FeaturesOf(model);
  e.assumptions = VramAssumptions(model, s);
  for (WorkNote& note : ExpertParallelNotes(model, s)) e.assumptions.push_back(std::move(note));
  return e;
}

nlohmann::json RentJson(const VramEstimate& e) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuFit& f : e.fits) {
    gpus.push_back({{"id", f.gpu_id}, {"name", f.gpu_name.en}, {"memory_gib", f.memory_gib},
                    {"count", f.count ? nlohmann::json(*f.count) : nlohmann::json(nullptr)},
                    {"per_gpu", BytesJson(f.per_gpu_bytes)}});
  }
  return gpus;
}

nlohmann::json SizeRangeJson(const SizeRange& range) {
  return {{"peak_allocated", {{"low", BytesJson(range.low_allocated)}, {"high", BytesJson(range.high_allocated)}}},
          {"peak_total", {{"low", BytesJson(range.low_bytes)}, {"high", BytesJson(range.high_bytes)}}},
          {"shapes", range.shapes},
          {"assumption", "the catalog's dense models of a similar size, each estimate scaled to this parameter count"}};
}

void PrintVramJson(const ModelInput& model, const VramOptions& o, const VramEstimate& e, const MachineReport* report, const CommandContext& context) {
  const TrainingSettings& s = e.settings;
  nlohmann::json j = {{"command", "vram"},
                      {"model", ModelJson(model)},
                      {"settings", TrainingSettingsJson(s)},
                      {"defaults_taken", DefaultsJson(e.defaults)},
                      {"memory", TrainingMemoryJson(e.memory)},
                      {"rule_of_thumb", RuleOfThumbJson(e.rule, Lang::En)},
                      {"rent", RentJson(e)},
                      {"rent_sharding", s.gpus > 1 || ShardingGiven(o.training) ? ShardingName(s.sharding) : "fsdp"},
                      {"features", WorkNotesJson(e.features)},
                      {"assumptions", WorkNotesJson(e.assumptions)}};
  if (e.range) j["size_range"] = SizeRangeJson(*e.range);
  j["memory"]["host_ram"]["machine"] = HostRamReportJson(e.memory, report);
  j["memory"]["replay"] = ReservedReplayJson(e.replay);
  PrintJson(j, context);
}

Table MemoryTable(const TrainingMemory& memory, Lang lang) {
  Table table;
  table.columns = {T("Что", "Part"), T("На карту", "Per GPU"), T("Как считали", "How counted")};
  for (const MemoryComponent& c : memory.components) table.AddRow({c.label, SizeCell(c, lang), c.note});
  table.notes.push_back(T("Пик = веса + состояния оптимизатора + max(активации + max(логиты, backward слоя), градиенты + буфер шага): "
                          "логиты освобождаются раньше, чем backward доходит до слоёв, а градиенты появляются, пока он освобождает активации.",
                          "Peak = weights + optimizer states + max(activations + max(logits, a layer's backward), gradients + step buffer): "
                          "the logits are freed before backward reaches the layers, and gradients appear while it frees activations."));
  if (memory.Find("kept_logits") != nullptr) {
    table.notes.push_back(T("--keep-logits: FP32-логиты в выходе модели не освобождаются до конца backward и стоят рядом с обоими этапами.",
                            "--keep-logits: the FP32 logits in the model output are not freed until backward ends and sit beside both stages."));
  }
  return table;
}

// Without an architecture: the range over the catalog's dense models of this size, and which.
void PrintSizeOnlyRange(const SizeRange& range, const std::string& model_text, const CommandContext& context) {
  const std::string needed = FormatRange(FormatGiBAndGB(range.low_bytes), FormatGiBAndGB(range.high_bytes));
  const std::string allocated = FormatRange(FormatGiBAndGB(range.low_allocated), FormatGiBAndGB(range.high_allocated));
  PrintLine(T(fmt::format("Только размер: нужно на карту {}, пик аллокатора {}.", needed, allocated),
              fmt::format("Size only: needed per GPU {}, allocator peak {}.", needed, allocated)).In(context.lang()),
            context);
  std::string shapes;
  for (const std::string& name : range.shapes) shapes += (shapes.empty() ? "" : ", ") + name;
  PrintLine(T(fmt::format("Допущение: модель устроена как {} (каталог), оценка каждой пересчитана на {}.", shapes, model_text),
              fmt::format("Assumption: the model is shaped like {} (catalog), each estimate scaled to {}.", shapes, model_text)).In(context.lang()),
            context);
}

// What a card needs: from the replay (the least it completes in) or the flat estimate.
Text NeedLine(const VramEstimate& e) {
  const std::string total = FormatGiBAndGB(*e.memory.peak_total_bytes);
  if (!e.replay.modelled) return T("Нужно на карту (с контекстом CUDA и кэшем): " + total, "Needed per GPU (with CUDA context and cache): " + total);
  if (e.settings.gpus > 1) {
    return T("Нужно на карту (наименьшее, с чем шаг проходит через аллокатор, с контекстом CUDA и буферами NCCL): " + total,
             "Needed per GPU (the least the step completes in through the allocator, with the CUDA context and NCCL's buffers): " + total);
  }
  return T("Нужно на карту (наименьшее, с чем шаг проходит через аллокатор, с контекстом CUDA): " + total,
           "Needed per GPU (the least the step completes in through the allocator, with the CUDA context): " + total);
}

// --gpu / --gpu-mem: the step replayed within that card's memory.
Text CardLine(const ReservedReplay& r) {
  const CardReplay& c = *r.on_card;
  const reference::GpuSpec* gpu = c.card.id.empty() ? nullptr : reference::GpuCatalog::Builtin().FindById(c.card.id);
  const Text name = gpu ? gpu->DisplayName() : T("карте", "the card");
  const std::string total = FormatGiBAndGB(c.card.total_bytes), limit = FormatGiBAndGB(c.card.limit_bytes);
  const Text where = T(fmt::format("На {} ({} {}, аллокатору остаётся {})", name.ru, total, c.card.total_from_source ? "по данным драйвера" : "номинально", limit),
                       fmt::format("On {} ({} {}, {} left for the allocator)", name.en, total, c.card.total_from_source ? "as its driver reports" : "nominal", limit));
  if (!c.fits) {
    const Text stage = StageText(c.oom_stage);
    return T(where.ru + fmt::format(": не помещается — нехватка памяти на этапе «{}», даже после сброса кэша.", stage.ru),
             where.en + fmt::format(": does not fit: out of memory at \"{}\", even after the cache is freed.", stage.en));
  }
  const std::string reserved = FormatGiBAndGB(c.reserved_peak);
  if (c.cache_flushes == 0) return T(where.ru + ": помещается, зарезервирует " + reserved + ".", where.en + ": fits, reserving " + reserved + ".");
  return T(where.ru + fmt::format(": помещается, зарезервирует {}, но аллокатор {} раз(а) освобождает кэш и повторяет выделение (это медленнее).", reserved, c.cache_flushes),
           where.en + fmt::format(": fits, reserving {}, but the allocator frees its cache and retries {} time(s) (slower).", reserved, c.cache_flushes));
}

// --compare-snapshot: the replay's segments after the last step and its peaks beside the run's.
Text SnapshotLine(const allocator::SnapshotComparison& c) {
  auto gib = [](uint64_t bytes) { return fmt::format("{:.2f}", static_cast<double>(bytes) / kBytesPerGiB); };
  auto peak = [&](const std::optional<uint64_t>& v) { return v ? gib(*v) : std::string("?"); };
  const std::string figures =
      fmt::format("{} / {} GiB ({} / {} small, {} / {} large; {} / {} segments); max_memory_reserved {} / {}, max_memory_allocated {} / {}",
                  gib(c.replay.reserved()), gib(c.measured.reserved()), gib(c.replay.reserved_small), gib(c.measured.reserved_small),
                  gib(c.replay.reserved_large), gib(c.measured.reserved_large), c.replay.segments_small + c.replay.segments_large,
                  c.measured.segments_small + c.measured.segments_large, peak(c.replay.max_reserved), peak(c.measured.max_reserved),
                  peak(c.replay.max_allocated), peak(c.measured.max_allocated));
  return T("Снимок памяти, зарезервировано после последнего шага (шаг через модель / снимок): " + figures,
           "Memory snapshot, reserved after the last step (replay / snapshot): " + figures);
}

// The figure that must fit: the detailed peak, else the size-only range, else the known lower bound.
void PrintPeak(const VramEstimate& e, const std::string& model_text, const CommandContext& context) {
  const Lang lang = context.lang();
  const TrainingMemory& memory = e.memory;
  if (memory.peak_allocated_bytes) {
    PrintLine(T("Пик аллокатора (torch.cuda.max_memory_allocated): ", "Allocator peak (torch.cuda.max_memory_allocated): ").In(lang) +
                  FormatGiBAndGB(*memory.peak_allocated_bytes), context);
    PrintLine(ReservedReplayLine(e.replay).In(lang), context);
    PrintLine(NeedLine(e).In(lang), context);
    if (e.replay.on_card) PrintLine(CardLine(e.replay).In(lang), context);
    if (e.replay.snapshot) PrintLine(SnapshotLine(*e.replay.snapshot).In(lang), context);
  } else if (e.range) {
    PrintSizeOnlyRange(*e.range, model_text, context);
  } else {
    PrintLine(T("Без архитектуры известна только часть: не меньше ", "Without the architecture only part is known: at least ").In(lang) +
                  FormatGiBAndGB(memory.known_bytes), context);
  }
}

// Memory the job uses outside the GPU allocator's peak: paged optimizer states and offload.
void PrintOutsidePeak(const TrainingMemory& memory, const MachineReport* report, const CommandContext& context) {
  if (memory.paged_bytes > 0) {
    PrintLine(T(fmt::format("Paged-состояния оптимизатора: {} в unified memory, вне пика аллокатора; при нехватке они уходят в RAM (медленнее).",
                            FormatGiBAndGB(memory.paged_bytes)),
                fmt::format("Paged optimizer states: {} in unified memory, outside the allocator peak; under pressure they move to CPU RAM (slower).",
                            FormatGiBAndGB(memory.paged_bytes))).In(context.lang()), context);
  }
  if (memory.cpu_bytes > 0) {
    PrintLine(T(fmt::format("Выгружено в RAM (offload): {} на каждый GPU; на машину с {} GPU нужно {} RAM под это состояние, "
                            "с запасом оценщика DeepSpeed ×1.5 (закреплённые буферы, фрагментация) — {}. Сами процессы (Python, torch, "
                            "библиотеки CUDA) и загрузка чекпойнта — сверху. Если GPU хватает, а RAM нет, процесс убьёт OOM killer.",
                            FormatGiBAndGB(memory.cpu_bytes), memory.host_gpus, FormatGiBAndGB(memory.host_ram_bytes),
                            FormatGiBAndGB(memory.host_ram_planned_bytes)),
                fmt::format("Offloaded to CPU RAM: {} per GPU; a machine with {} GPU(s) needs {} of RAM for this state, "
                            "{} with DeepSpeed's estimator margin of 1.5x (pinned buffers, fragmentation). The processes themselves (Python, "
                            "torch, CUDA libraries) and checkpoint loading come on top. A run that fits the GPUs but not this RAM is killed by the OOM killer.",
                            FormatGiBAndGB(memory.cpu_bytes), memory.host_gpus, FormatGiBAndGB(memory.host_ram_bytes),
                            FormatGiBAndGB(memory.host_ram_planned_bytes))).In(context.lang()), context);
  }
  if (const auto verdict = HostRamVerdict(memory, report)) PrintLine(verdict->In(context.lang()), context);
}

// Every catalog name starts with the vendor; the rent table lists several per row and drops it,
// and a name never breaks across lines when the list wraps.
Text ShortUnbrokenName(const Text& name) {
  static const std::string kVendor = "NVIDIA ";
  auto shorten = [](const std::string& n) { return NoBreak(n.rfind(kVendor, 0) == 0 ? n.substr(kVendor.size()) : n); };
  return Text(shorten(name.ru), shorten(name.en));
}

// One row per memory size that does the job on at most 8 cards; the sizes that do not are the
// smallest ones (a larger card never needs more cards), so one note names them by the largest.
Table RentTable(const VramEstimate& e, const TrainingOptions& training) {
  Table rent;
  rent.title = T("Какую карту арендовать", "Which card to rent");
  rent.columns = {T("Память", "Memory"), T("Карт", "Cards"), T("Нужно на карту", "Needed per card"), T("GPU", "GPU")};
  std::optional<GpuFitGroup> largest_too_small;
  for (const GpuFitGroup& group : GroupByMemorySize(e.fits)) {
    if (!group.count) {
      if (!largest_too_small || group.memory_gib > largest_too_small->memory_gib) largest_too_small = group;
      continue;
    }
    std::vector<Text> names;
    for (const Text& name : group.gpu_names) names.push_back(ShortUnbrokenName(name));
    rent.AddRow({fmt::format("{:g} GiB", group.memory_gib), std::to_string(*group.count),
                 FormatGiBAndGB(group.per_gpu_bytes), Join(names, ", ")});
  }
  if (largest_too_small) {
    const std::string need = FormatGiBAndGB(largest_too_small->per_gpu_bytes);
    rent.notes.push_back(T(fmt::format("Карты до {:g} GiB не годятся и по восемь: на каждую нужно {}.", largest_too_small->memory_gib, need),
                           fmt::format("Cards of up to {:g} GiB do not do it even eight at a time: each would need {}.",
                                       largest_too_small->memory_gib, need)));
  }
  if (e.settings.sharding == Sharding::Ddp && !ShardingGiven(training)) {
    rent.notes.push_back(T("На нескольких картах считаем FSDP (веса, градиенты и состояния поделены).",
                           "Several cards are counted with FSDP (weights, gradients and states sharded)."));
  }
  if (e.settings.expert_parallel > 1) {
    rent.notes.push_back(T(fmt::format("Экспертный параллелизм на n картах — наибольший делитель {} и n.", e.settings.expert_parallel),
                           fmt::format("Expert parallelism on n cards: the largest common divisor of {} and n.", e.settings.expert_parallel)));
  }
  return rent;
}

// A table whose rows are all gone (no card does it on 8) prints its title and notes alone.
void PrintRentTable(const Table& rent, const CommandContext& context) {
  if (!rent.rows.empty()) {
    PrintTable(rent, context);
    return;
  }
  PrintLine(rent.title.In(context.lang()), context);
  for (const Text& note : rent.notes) PrintLine("  " + note.In(context.lang()), context);
}

void PrintVramText(const ModelInput& model, const VramOptions& o, const VramEstimate& e, const MachineReport* report, const CommandContext& context) {
  const Lang lang = context.lang();
  PrintLine(ModelLine(model, lang), context);
  PrintWorkNotes(e.features, e.assumptions, context);
  PrintLine(MethodTitle(e.settings.method).In(lang) + ": " + SettingsLine(e.settings), context);
  PrintDefaultsTaken(e.defaults, context);
  PrintLine("", context);
  PrintTable(MemoryTable(e.memory, lang), context);
  PrintLine("", context);
  PrintPeak(e, o.model, context);
  PrintOutsidePeak(e.memory, report, context);
  PrintLine("", context);
  PrintLine(T("Правило урока: ", "The lesson's rule of thumb: ").In(lang) + e.rule.formula.In(lang), context);
  PrintLine(e.rule.comparison.In(lang), context);
  PrintLine("", context);
  PrintRentTable(RentTable(e, o.training), context);
}

void Run(const VramOptions& o, const CommandContext& context) {
  auto model = ResolveOrFail(o.model, context);
  if (!model) return;
  const auto settings = SettingsOrFail(o.training, context);
  if (!settings) return;
  if (const auto error = ExpertParallelModelError(*model, *settings)) return context.Fail(error->In(context.lang()));
  if (const auto error = MoeKernelModelError(*model, *settings)) return context.Fail(error->In(context.lang()));
  if (!o.gpu.empty() && reference::GpuCatalog::Builtin().FindById(o.gpu) == nullptr) {
    return context.Fail(T(fmt::format("--gpu {}: такой карты нет в каталоге; id — в столбце GPU таблицы «Какую карту арендовать» (или задайте --gpu-mem)", o.gpu),
                          fmt::format("--gpu {}: no such card in the catalog; the ids are those of `lab_check vram ... --json` \"rent\" (or give --gpu-mem)", o.gpu)).In(context.lang()));
  }
  std::optional<allocator::SnapshotFigures> measured;
  if (!o.snapshot.empty()) {
    auto read = ReadSnapshotFile(o.snapshot, context.lang());
    if (!read.ok()) return context.Fail(read.status().message());
    measured = std::move(read).value();
  }
  const VramEstimate estimate = EstimateVram(*model, o, *settings, measured);
  // Only offloaded runs read the report: for their host RAM (host_ram_check.h).
  const auto report_read = estimate.memory.cpu_bytes > 0 ? ReadMachineReport(context.env->last_report_path) : Result<MachineReport>(Status::Error(""));
  const MachineReport* report = report_read.ok() ? &report_read.value() : nullptr;
  if (o.json) PrintVramJson(*model, o, estimate, report, context);
  else PrintVramText(*model, o, estimate, report, context);
  context.Succeed();
}

}  // namespace

void AddVramCommand(CLI::App& app, const CommandContext& context) {
  auto options = std::make_shared<VramOptions>();
  CLI::App* sub = app.add_subcommand("vram", T("память GPU для обучения: полное дообучение, LoRA, QLoRA", "GPU memory for training: full fine-tuning, LoRA, QLoRA").In(context.lang()));
  sub->add_option("model", options->model, T("имя из каталога, размер (7B), путь к config.json или id репозитория HF из локального кэша", "catalog name, size (7B), config.json path or cached HF repo id").In(context.lang()))->required();
  AddTrainingOptions(sub, options->training, true, context.lang());
  sub->add_option("--gpu", options->gpu, T("карта, на которой идёт обучение (id из каталога, напр. rtx-4090): шаг проигрывается на её памяти",
                                             "the card the run is on (catalog id, e.g. rtx-4090): the step is replayed within its memory").In(context.lang()));
  sub->add_option("--gpu-mem", options->gpu_mem, T("память такой карты, GiB (если её нет в каталоге)", "that card's memory in GiB (for one outside the catalog)").In(context.lang()))
      ->check(CLI::Range(1.0, 4096.0));
  sub->add_option("--compare-snapshot", options->snapshot,
                  T("снимок памяти настоящего запуска (torch.cuda.memory._snapshot(), как его пишет scripts/device/measure_vram_peak.py): сравнить с ним сегменты шага",
                    "a real run's memory snapshot (torch.cuda.memory._snapshot(), as scripts/device/measure_vram_peak.py writes it): set the step's segments against it").In(context.lang()));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

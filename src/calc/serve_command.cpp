// lab_check serve MODEL [--gpus N --gpu ID --gpu-mem GiB --quant bf16|int8|int4 --utilization U --vllm-version V
//                        --data-parallel-size D --enable-expert-parallel]:
// does it fit under vLLM, at which tensor-parallel degree, with how much KV cache.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "calc/byte_units.h"
#include "calc/model_features.h"
#include "calc/serving.h"
#include "calc/subcommands.h"
#include "calc/vllm_log_coverage.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {
namespace {

struct ServeOptions {
  std::string model;
  int gpus = 0;             // 0: from the machine, else the course's lab
  std::string gpu;          // --gpu: a card id of data/gpus.json; empty: the machine's card, else unnamed
  double gpu_mem_gib = 0;   // 0: same
  std::string quant;  // empty: as the checkpoint stores it (quantization_config), else BF16
  double utilization = 0;   // 0: vLLM's default
  int64_t max_model_len = 0;
  std::string kv_dtype = "bf16";
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  bool enforce_eager = false;
  bool flashinfer_sampler = false;  // --flashinfer-sampler
  int data_parallel = 1;         // --data-parallel-size
  bool expert_parallel = false;  // --enable-expert-parallel
  std::string vllm_version;  // empty: the one installed in the chosen Python, else the stated default
  bool json = false;
};

// Where the vLLM version came from: the flag, the chosen Python, or the default.
enum class VersionSource { Flag, Installed, Default };

const char* VersionSourceName(VersionSource source) {
  switch (source) {
    case VersionSource::Flag: return "flag";
    case VersionSource::Installed: return "installed";
    case VersionSource::Default: return "default";
  }
  return "?";
}

struct ResolvedVersion {
  VllmVersion version;
  VersionSource source = VersionSource::Default;
};

// --vllm-version, else the chosen Python's vLLM, else the default; nullopt (exit 2 printed) when
// the flag is not a version.
std::optional<ResolvedVersion> ResolveVllmVersion(const ServeOptions& o, const CommandContext& context) {
  if (!o.vllm_version.empty()) {
    const std::optional<VllmVersion> v = ParseVllmVersion(o.vllm_version);
    if (!v) {
      context.Fail(T(fmt::format("--vllm-version \"{}\" — не версия vLLM: ожидается вида 0.19.0 (или 0.11)", o.vllm_version),
                     fmt::format("--vllm-version \"{}\" is not a vLLM version: expected the form 0.19.0 (or 0.11)", o.vllm_version)).In(context.lang()));
      return std::nullopt;
    }
    return ResolvedVersion{*v, VersionSource::Flag};
  }
  if (context.env && context.env->installed_vllm_version) {
    if (const std::optional<std::string> installed = context.env->installed_vllm_version()) {
      if (const std::optional<VllmVersion> v = ParseVllmVersion(*installed)) return ResolvedVersion{*v, VersionSource::Installed};
    }
  }
  return ResolvedVersion{DefaultVllmVersion(), VersionSource::Default};
}

// GPUs to plan for: the flags, else this machine, else the course's lab machine. Says which.
// --gpu names the card (Run has checked the id); without --gpu-mem its memory is the size it is sold
// with, a little above what PyTorch sees (79.19 GiB of an H100 80GB in the logs checked).
Text ResolveGpus(const ServeOptions& o, const CommandContext& context, ServeSettings& s) {
  const CalcConstants& k = CalcConstants::Builtin();
  const std::vector<LiveGpu> live = LiveGpus(context);
  if (const reference::GpuSpec* card = o.gpu.empty() ? nullptr : reference::GpuCatalog::Builtin().FindById(o.gpu)) {
    s.gpu_name = card->name;
    s.gpu_id = card->id;
    s.gpu_cc_major = card->cc_major;
    if (o.gpu_mem_gib <= 0) {
      s.gpus = o.gpus > 0 ? o.gpus : 1;
      s.gpu_memory_gib = card->memory_gib;
      return T(fmt::format("{} × {}, {:g} GiB — объём по паспорту; PyTorch видит чуть меньше: точнее с --gpu-mem", s.gpus, card->DisplayName().ru,
                           card->memory_gib),
               fmt::format("{} × {}, {:g} GiB as sold; PyTorch sees a little less: give --gpu-mem for exact figures", s.gpus, card->name, card->memory_gib));
    }
  }
  if (o.gpu_mem_gib > 0) {
    s.gpus = o.gpus > 0 ? o.gpus : 1;
    s.gpu_memory_gib = o.gpu_mem_gib;
    return T("GPU заданы в командной строке", "GPUs as given on the command line");
  }
  if (!live.empty()) {
    s.gpus = o.gpus > 0 ? std::min<int>(o.gpus, static_cast<int>(live.size())) : static_cast<int>(live.size());
    s.gpu_memory_gib = SmallestMemoryGib(live);
    s.gpu_name = live.front().name;
    if (const reference::GpuSpec* card = reference::GpuCatalog::Builtin().Match(s.gpu_name, s.gpu_memory_gib)) {
      s.gpu_id = card->id;
      s.gpu_cc_major = card->cc_major;
    }
    return T(fmt::format("GPU этой машины: {} × {:.1f} GiB", s.gpus, s.gpu_memory_gib),
             fmt::format("this machine's GPUs: {} × {:.1f} GiB", s.gpus, s.gpu_memory_gib));
  }
  s.gpus = o.gpus > 0 ? o.gpus : k.course_lab_gpus;
  s.gpu_memory_gib = k.course_lab_memory_gib;
  return T(fmt::format("GPU не найдены и не заданы (--gpu-mem): считаю для машины курса, {} × {:g} GiB", s.gpus, s.gpu_memory_gib),
           fmt::format("no GPUs found or given (--gpu-mem): assuming the course's machine, {} × {:g} GiB", s.gpus, s.gpu_memory_gib));
}

std::string Tokens(const std::optional<int64_t>& tokens, Lang lang) {
  return tokens ? fmt::format("{}", *tokens) : T("нужна архитектура", "needs the architecture").In(lang);
}

// Which vLLM version the profile follows, where the version came from, and the rule's constants.
WorkNote VllmProfileNote(const VllmProfileChoice& p, VersionSource source) {
  const VllmProfileRule& r = p.rule;
  const std::string checked = fmt::format("{}", fmt::join(r.checked_versions, ", "));
  const Text from = source == VersionSource::Flag        ? T("из --vllm-version", "from --vllm-version")
                    : source == VersionSource::Installed ? T("установлена в выбранном Python", "installed in the chosen Python")
                                                         : T("vLLM не найден: версия по умолчанию, новейшая из сверенных с логами",
                                                             "no vLLM found: the default, the newest version checked against logs");
  Text trust = p.checked ? T(fmt::format("правило сверено с логами vLLM {}", checked), fmt::format("rule checked against vLLM {} logs", checked))
                               : T(fmt::format("логов этой версии не сверяли: правило ближайших версий ({}), это допущение", checked),
                                   fmt::format("no log of this version was checked: the rule of the nearest versions ({}), an assumption", checked));
  // V0 was the default engine before 0.8 (vLLM 0.8.0's release notes: "V1 is now the default"):
  // no log of it was checked and its profile step (a dummy batch of max_num_seqs sequences) differs.
  const bool v0 = p.version < VllmVersion{0, 8, 0, ""};
  if (v0) {
    trust = T(trust.ru + "; до 0.8 по умолчанию работает движок V0, его шаг профилирования не моделируется: оценка — по правилу V1",
              trust.en + "; before 0.8 the default engine is V0, whose profile step is not modelled: the figure follows the V1 rule");
  }
  return {"vllm_profile",
          T(fmt::format("vLLM {} ({}), правило профиля {}: сэмплер{} {:g} байт на строку и токен словаря, вне PyTorch {:g} GiB ({:g} при TP > 1){}; {}",
                        p.version.text, from.ru, r.id, p.flashinfer_sampler ? " FlashInfer" : "", r.sampler_bytes_per_vocab_entry, r.non_torch_gib, r.non_torch_tp_gib,
                        r.hybrid_kv_groups ? ", слои с окном — группами гибридного менеджера KV-кэша" : "", trust.ru),
            fmt::format("vLLM {} ({}), profile rule {}: {}sampler {:g} bytes per row and vocabulary entry, {:g} GiB outside PyTorch ({:g} at TP > 1){}; {}",
                        p.version.text, from.en, r.id, p.flashinfer_sampler ? "FlashInfer's " : "", r.sampler_bytes_per_vocab_entry, r.non_torch_gib, r.non_torch_tp_gib,
                        r.hybrid_kv_groups ? ", window layers in the hybrid KV cache manager's groups" : "", trust.en))};
}

// How the experts are spread: TP splits every expert over tp GPUs; --enable-expert-parallel with
// data parallelism puts experts / (tp x dp) whole experts on each GPU and replicates the rest per dp rank.
WorkNote MoeShardingNote(const Architecture& a, const ServeSettings& s) {
  if (s.expert_parallel && s.data_parallel > 1) {
    return {"moe_sharding", T(fmt::format("--enable-expert-parallel: {} экспертов на группу EP из tp × {} GPU (по experts / (tp × {}) целиком на GPU); внимание, эмбеддинги и плотные слои делятся на tp и повторяются в каждой из {} копий DP, как в vLLM",
                                          a.moe.experts, s.data_parallel, s.data_parallel, s.data_parallel),
                              fmt::format("--enable-expert-parallel: the {} experts over an EP group of tp × {} GPUs (experts / (tp × {}) whole experts per GPU); attention, embeddings and dense layers split by tp and replicated on each of the {} DP ranks, as vLLM does",
                                          a.moe.experts, s.data_parallel, s.data_parallel, s.data_parallel))};
  }
  return {"moe_sharding", T("веса экспертов делятся поровну на tp GPU: так и при TP, и с --enable-expert-parallel при --data-parallel-size 1 (тогда каждая GPU держит experts / tp экспертов целиком)",
                            "expert weights split evenly over tp GPUs: so with TP and with --enable-expert-parallel at --data-parallel-size 1 alike (then each GPU holds experts / tp whole experts)")};
}

std::string Mib(double bytes) { return fmt::format("{:.2f} MiB", bytes / kBytesPerMiB); }

// The tp row whose hybrid page layout the notes describe: the chosen tp, else the suggested one,
// else the widest with a layout.
const TpOption* HybridRow(const ServePlan& plan) {
  const std::optional<int> tp = plan.chosen_tp ? plan.chosen_tp : plan.suggested_tp;
  const TpOption* row = nullptr;
  for (const TpOption& o : plan.options) {
    if (o.hybrid_pages && (!tp || o.tp == *tp)) row = &o;
  }
  return row;
}

// How vLLM pages a hybrid with state layers (vllm_hybrid_pages.h), at the row HybridRow picks.
WorkNote HybridPagesNote(const ServePlan& plan) {
  const TpOption* row = HybridRow(plan);
  const HybridPages& p = *row->hybrid_pages;
  const int64_t padding = plan.kv_slots.padding();
  return {"hybrid_state_pages",
          T(fmt::format("vLLM V1 держит {} слоёв-состояний и {} слоёв внимания в одном пуле равных страниц: при tp {} блок внимания поднят до {} токенов, "
                        "чтобы страница ({}) вместила состояние слоя ({}, добито на {:.2f}%); слои — {} групп по {} ({} внимания, {} состояний, {} пустых мест), "
                        "каждому месту в группе — одинаково страниц, поэтому «KV, токенов» = страниц ÷ групп × блок, как vLLM пишет «GPU KV cache size». "
                        "Правило vLLM 0.10.2–0.19 (config.py HybridAttentionMambaModelConfig, v1/core/kv_cache_utils.py) без кэша префиксов: "
                        "команда ниже его выключает (с ним версии новее 0.11 хранят состояния поблочно, и одновременных запросов меньше)",
                        p.state_layers, p.attention_layers, row->tp, p.block_tokens, Mib(p.page_bytes), Mib(p.state_bytes),
                        p.state_padding_percent(), p.groups(), p.group_size, p.attention_groups, p.state_groups, padding),
            fmt::format("vLLM V1 keeps the {} state layers and the {} attention layers in one pool of equal pages: at tp {} the attention block is raised to {} tokens "
                        "so that a page ({}) holds one layer's state ({}, padded by {:.2f}%); the layers form {} groups of {} ({} attention, {} state, {} padding slots), "
                        "every group slot gets the same pages, so 'KV tokens' = pages ÷ groups × block, what vLLM prints as \"GPU KV cache size\". "
                        "vLLM 0.10.2-0.19's rule (config.py HybridAttentionMambaModelConfig, v1/core/kv_cache_utils.py) without prefix caching: "
                        "the command below turns it off (with it, versions after 0.11 cache states per block and fewer requests fit)",
                        p.state_layers, p.attention_layers, row->tp, p.block_tokens, Mib(p.page_bytes), Mib(p.state_bytes),
                        p.state_padding_percent(), p.groups(), p.group_size, p.attention_groups, p.state_groups, padding))};
}

// A count as vLLM's log writes it (Python's f"{n:,}": 652,528), so the line can be searched for.
std::string VllmCount(int64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > (n < 0 ? 1 : 0); i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

// What vLLM itself prints for a hybrid with state layers at that row.
Text HybridPoolNote(const ServePlan& plan) {
  const TpOption* row = HybridRow(plan);
  if (!row || !row->kv_tokens || !row->vllm_concurrency) return {};
  const std::string tokens = VllmCount(*row->kv_tokens), len = VllmCount(plan.max_model_len);
  return T(fmt::format("vLLM при tp {} напишет «GPU KV cache size: {} tokens» и «Maximum concurrency for {} tokens per request: {:.2f}x».",
                       row->tp, tokens, len, *row->vllm_concurrency),
           fmt::format("At tp {} vLLM prints \"GPU KV cache size: {} tokens\" and \"Maximum concurrency for {} tokens per request: {:.2f}x\".",
                       row->tp, tokens, len, *row->vllm_concurrency));
}

// What the plan assumes beyond the config and the flags.
// MXFP4 experts on a card before Hopper take vLLM's Marlin kernel, which pads them (serving.h).
std::optional<WorkNote> MarlinPaddingNote(const ModelInput& model, const ServePlan& plan, const ServeSettings& s) {
  if (!model.arch || plan.options.empty()) return std::nullopt;
  const int tp = plan.chosen_tp.value_or(plan.options.back().tp);
  const double factor = MarlinMxfp4ExpertPadding(*model.arch, s, s.expert_parallel && s.data_parallel > 1 ? 1 : tp);
  if (factor <= 1.0) return std::nullopt;
  const double pct = (factor - 1) * 100;
  return WorkNote{"mxfp4_marlin_padding",
                  T(fmt::format("MXFP4-эксперты на карте до Hopper (compute capability {}.x): vLLM считает их ядром Marlin и дополняет размеры экспертов "
                                "(промежуточный на ранг — до кратного 128, скрытый — до кратного 256; при tp {} веса экспертов на GPU больше на {:.1f} %)",
                                s.gpu_cc_major, tp, pct),
                    fmt::format("MXFP4 experts on a card before Hopper (compute capability {}.x): vLLM runs them with its Marlin kernel and pads the experts "
                                "(intermediate size per rank to a multiple of 128, hidden size to a multiple of 256; at tp {} the experts take {:.1f} % more per GPU)",
                                s.gpu_cc_major, tp, pct))};
}

// vLLM's default --gpu-memory-utilization by version, as the rules give it: "0.9 before 0.21, 0.92
// from 0.21" (consecutive rules with the same default are one span).
Text DefaultUtilizationSpans() {
  std::vector<std::pair<const VllmProfileRule*, double>> spans;  // first rule of each span, its default
  for (const VllmProfileRule& r : VllmProfileRules()) {
    if (spans.empty() || spans.back().second != r.default_utilization) spans.emplace_back(&r, r.default_utilization);
  }
  std::vector<std::string> ru, en;
  for (size_t i = 0; i < spans.size(); ++i) {
    const std::string value = fmt::format("{:g}", spans[i].second);
    const std::string from = fmt::format("{}.{}", spans[i].first->from.major, spans[i].first->from.minor);
    if (i + 1 < spans.size()) {
      const std::string next = fmt::format("{}.{}", spans[i + 1].first->from.major, spans[i + 1].first->from.minor);
      ru.push_back(fmt::format("{} до {}", value, next));
      en.push_back(fmt::format("{} before {}", value, next));
    } else {
      ru.push_back(i == 0 ? value : fmt::format("{} с {}", value, from));
      en.push_back(i == 0 ? value : fmt::format("{} from {}", value, from));
    }
  }
  return T(fmt::format("{}", fmt::join(ru, ", ")), fmt::format("{}", fmt::join(en, ", ")));
}

// No --utilization: the plan takes what this vLLM version takes by itself, and says so.
WorkNote DefaultUtilizationNote(const VllmProfileChoice& p) {
  const Text spans = DefaultUtilizationSpans();
  return {"default_utilization",
          T(fmt::format("--utilization не задан: {:g}, умолчание --gpu-memory-utilization в vLLM {} (правило {}: {}), как при запуске vLLM без этого флага",
                        p.rule.default_utilization, p.version.text, p.rule.id, spans.ru),
            fmt::format("no --utilization: {:g}, vLLM {}'s default --gpu-memory-utilization (rule {}: {}), as when vLLM is started without the flag",
                        p.rule.default_utilization, p.version.text, p.rule.id, spans.en))};
}

std::vector<WorkNote> ServeAssumptions(const ModelInput& model, const ServePlan& plan, const ServeSettings& s, VersionSource source) {
  std::vector<WorkNote> notes;
  notes.push_back(VllmProfileNote(s.profile, source));
  notes.push_back(CheckedLogsNote(s.gpu_id, s.profile.version));
  if (plan.max_num_seqs_defaulted && plan.max_num_batched_tokens_defaulted) {
    notes.push_back({"batch_defaults", T("--max-num-seqs и --max-num-batched-tokens — умолчания vLLM для этой карты", "--max-num-seqs and --max-num-batched-tokens are vLLM's defaults for this card")});
  } else if (plan.batch_defaults_taken) {
    const std::string flag = plan.max_num_seqs_defaulted ? "--max-num-seqs" : "--max-num-batched-tokens";
    notes.push_back({"batch_defaults", T(flag + " — умолчание vLLM для этой карты", flag + " is vLLM's default for this card")});
  }
  if (!model.arch) return notes;
  const Architecture& a = *model.arch;
  if (a.mla.enabled()) {
    notes.push_back({"mla_replicated", T("латент MLA целиком на каждой GPU (MLA-бэкенды vLLM): TP освобождает место под KV только за счёт весов",
                                         "the MLA latent is whole on every GPU (vLLM's MLA backends): TP makes room for KV only by splitting the weights")});
  }
  if (a.moe.enabled()) notes.push_back(MoeShardingNote(a, s));
  if (s.data_parallel > 1) {
    notes.push_back({"data_parallel", T(fmt::format("--data-parallel-size {}: {} копии движка по tp GPU, у каждой свой KV-кэш; таблица — на одну GPU, всего токенов и последовательностей в {} раз больше. "
                                                    "Память вне PyTorch при DP взята как при TP > 1 (логов с DP не сверяли)", s.data_parallel, s.data_parallel, s.data_parallel),
                                        fmt::format("--data-parallel-size {}: {} engine replicas of tp GPUs, each with its own KV cache; the table is per GPU, {} times the tokens and sequences in all. "
                                                    "Memory outside PyTorch under DP is taken as at TP > 1 (no log with DP was checked)", s.data_parallel, s.data_parallel, s.data_parallel))});
  }
  if (plan.kv_slots.state_groups > 0 && HybridRow(plan)) notes.push_back(HybridPagesNote(plan));
  if (plan.kv_slots.state_groups == 0 && plan.kv_slots.padding() > 0) {
    notes.push_back({"kv_padding_layers", T(fmt::format("гибридный менеджер KV-кэша vLLM делит {} слоёв внимания на {} групп по {} и добавляет {} пустых слоя: пул KV на них тоже тратится (vLLM пишет «Add N padding layers»)",
                                                        plan.kv_slots.attention_layers, plan.kv_slots.groups, plan.kv_slots.group_size, plan.kv_slots.padding()),
                                                    fmt::format("vLLM's hybrid KV cache manager splits the {} attention layers into {} groups of {} and adds {} padding layers, which take pool memory too (vLLM prints \"Add N padding layers\")",
                                                                plan.kv_slots.attention_layers, plan.kv_slots.groups, plan.kv_slots.group_size, plan.kv_slots.padding()))});
  }
  if (a.SlidingLayerCount() > 0) {
    notes.push_back({"window_vllm_rule", T("на запрос слой с окном резервирует min(окно − 1 + max_num_batched_tokens, max_model_len) токенов + 1 блок: правило "
                                           "vLLM 0.11 (kv_cache_interface.py, SlidingWindowSpec.max_memory_usage_bytes) при гибридном менеджере KV-кэша; "
                                           "«KV, токенов» в таблице — пул, делённый на все слоты слоёв в группах гибридного менеджера, пустые слоты тоже, как если бы каждый хранил каждый токен",
                                           "per request a sliding-window layer reserves min(window − 1 + max_num_batched_tokens, max_model_len) tokens + 1 block: "
                                           "vLLM 0.11's rule (kv_cache_interface.py, SlidingWindowSpec.max_memory_usage_bytes) with the hybrid KV cache manager; "
                                           "'KV tokens' in the table is the pool divided over every layer slot of the hybrid manager's groups, padding included, as if each held every token")});
  }
  if (a.ChunkedLayerCount() > 0) {
    notes.push_back({"chunked_vllm_rule", T("на запрос слой с чанковым вниманием резервирует min(чанк + max_num_batched_tokens, max_model_len) токенов "
                                            "(kv_cache_interface.py, ChunkedLocalAttentionSpec, vLLM на коммите 001cabc1be16) при гибридном менеджере KV-кэша. "
                                            "Для чанкового внимания vLLM включает его только с VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 "
                                            "(по умолчанию выключено в тех версиях, где эта переменная по умолчанию 0): она стоит в команде ниже; без неё каждый слой держит весь контекст",
                                            "per request a chunked-attention layer reserves min(chunk + max_num_batched_tokens, max_model_len) tokens "
                                            "(kv_cache_interface.py, ChunkedLocalAttentionSpec, vLLM at commit 001cabc1be16) with the hybrid KV cache manager. "
                                            "vLLM uses that manager with chunked attention only under VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 "
                                            "(off in the versions where that variable defaults to 0): the command below sets it; without it every layer holds the whole context")});
  }
  return notes;
}

struct ServeEstimate {
  ServeSettings settings;
  Text gpu_source;
  std::string quant_label;  // what the weights are stored in: the flag, the checkpoint's scheme, or bf16
  VersionSource version_source = VersionSource::Default;
  bool utilization_defaulted = false;  // no --utilization: the version's default
  ServePlan plan;
  std::vector<WorkNote> features;
  std::vector<WorkNote> assumptions;
};

ServeEstimate EstimateServe(const ModelInput& model, const ServeOptions& o, const ResolvedVersion& version, const CommandContext& context) {
  const CalcConstants& k = CalcConstants::Builtin();
  ServeEstimate e;
  e.version_source = version.source;
  ServeSettings& s = e.settings;
  e.gpu_source = ResolveGpus(o, context, s);
  const bool quantized_checkpoint = model.arch && model.arch->quant.enabled();
  s.quant = !o.quant.empty() ? *ParseServeQuant(o.quant) : quantized_checkpoint ? ServeQuant::Checkpoint : ServeQuant::Bf16;
  e.quant_label = !o.quant.empty() ? o.quant : quantized_checkpoint ? model.arch->quant.name : "bf16";
  s.max_model_len = o.max_model_len;
  s.kv_dtype_bytes = o.kv_dtype == "fp8" ? 1 : 2;
  s.max_num_seqs = o.max_num_seqs;
  s.max_num_batched_tokens = o.max_num_batched_tokens;
  s.enforce_eager = o.enforce_eager;
  s.data_parallel = o.data_parallel;
  s.expert_parallel = o.expert_parallel;
  s.profile = ChooseVllmProfile(version.version);
  if (o.flashinfer_sampler) s.profile = WithFlashInferSampler(s.profile);
  // Without --utilization, what that vLLM version takes by itself (0.9 before 0.21, 0.92 from 0.21).
  e.utilization_defaulted = o.utilization <= 0;
  s.utilization = e.utilization_defaulted ? s.profile.rule.default_utilization : o.utilization;
  e.plan = PlanServing(model, s, k);
  e.features = FeaturesOf(model);
  e.assumptions = ServeAssumptions(model, e.plan, s, version.source);
  if (e.utilization_defaulted) e.assumptions.insert(e.assumptions.begin() + 1, DefaultUtilizationNote(s.profile));
  if (std::optional<WorkNote> marlin = MarlinPaddingNote(model, e.plan, s)) e.assumptions.push_back(*marlin);
  return e;
}

void PrintServeJson(const ModelInput& model, const ServeEstimate& e, const CommandContext& context) {
  nlohmann::json j = {{"command", "serve"}, {"model", ModelJson(model)}, {"gpu_source", e.gpu_source.In(Lang::En)}};
  j["serve"] = ServePlanJson(e.plan, e.settings);
  j["serve"]["vllm_profile"]["version_source"] = VersionSourceName(e.version_source);
  j["serve"]["utilization_source"] = e.utilization_defaulted ? "vllm_default" : "flag";
  j["serve"]["vllm_profile"]["checked_logs"] = CheckedLogsJson(e.settings.gpu_id, e.settings.profile.version);
  j["features"] = WorkNotesJson(e.features);
  j["assumptions"] = WorkNotesJson(e.assumptions);
  PrintJson(j, context);
}

// The model, where the GPUs came from, the weights and the batch vLLM profiles with.
void PrintServeBasis(const ModelInput& model, const ServeEstimate& e, const CommandContext& context) {
  const Lang lang = context.lang();
  const ServePlan& plan = e.plan;
  PrintLine(ModelLine(model, lang), context);
  PrintWorkNotes(e.features, e.assumptions, context);
  PrintLine(e.gpu_source.In(lang), context);
  PrintLine(T(fmt::format("Веса в {}: {}", e.quant_label, FormatGiBAndGB(plan.weights_bytes)),
              fmt::format("Weights at {}: {}", e.quant_label, FormatGiBAndGB(plan.weights_bytes))).In(lang), context);
  PrintLine(T(fmt::format("Профиль vLLM {} (правило {}): --max-num-seqs {}, --max-num-batched-tokens {}{}", e.settings.profile.version.text,
                          e.settings.profile.rule.id, plan.max_num_seqs, plan.max_num_batched_tokens,
                          plan.batch_defaults_taken ? " (умолчания vLLM для этой карты: 8192/1024 при ≥ 70 GiB, кроме A100, иначе 2048/256)" : ""),
              fmt::format("vLLM {} profile (rule {}): --max-num-seqs {}, --max-num-batched-tokens {}{}", e.settings.profile.version.text,
                          e.settings.profile.rule.id, plan.max_num_seqs, plan.max_num_batched_tokens,
                          plan.batch_defaults_taken ? " (vLLM's defaults for this card: 8192/1024 at ≥ 70 GiB except the A100, else 2048/256)" : "")).In(lang),
            context);
}

// How the room for the KV cache is counted, as vLLM counts it.
Text KvRoomNote(const ServeEstimate& e, const CalcConstants& k) {
  const ServeSettings& s = e.settings;
  const ServePlan& plan = e.plan;
  const VllmProfileRule& r = s.profile.rule;
  const bool hybrid = plan.kv_slots.state_groups > 0;
  const bool graphs = r.cuda_graphs_in_budget && plan.cuda_graph_bytes > 0;  // vLLM 0.21 on: see CudaGraphNote
  return T(fmt::format("vLLM: {:g} × {:g} GiB на карту минус веса, пик профиля (forward или сэмплер){} {:g} GiB вне PyTorch "
                       "({:g} GiB при TP > 1){}; остаток — {}. Влезает, если в него помещается одна "
                       "последовательность{}.",
                       s.utilization, s.gpu_memory_gib, graphs ? "," : " и", r.non_torch_gib, r.non_torch_tp_gib, graphs ? " и CUDA-графы (ниже)" : "",
                       hybrid ? "KV-кэш и состояния слоёв, страницами одного размера (блок внимания поднят, см. ниже)"
                              : fmt::format("KV-кэш блоками по {} токенов", k.vllm_block_size),
                       plan.max_model_len > 0 ? fmt::format(" из {} токенов", plan.max_model_len) : ""),
           fmt::format("vLLM: {:g} × {:g} GiB per card minus weights, the profile run's peak (forward or sampler){} {:g} GiB "
                       "outside PyTorch ({:g} GiB at TP > 1){}; the rest is {}. Fits when it holds "
                       "one sequence{}.",
                       s.utilization, s.gpu_memory_gib, graphs ? "," : " and", r.non_torch_gib, r.non_torch_tp_gib, graphs ? " and the CUDA graphs (below)" : "",
                       hybrid ? "the KV cache and the layers' states, in pages of one size (the attention block raised, see below)"
                              : fmt::format("KV cache in blocks of {} tokens", k.vllm_block_size),
                       plan.max_model_len > 0 ? fmt::format(" of {} tokens", plan.max_model_len) : ""));
}

// Where the CUDA graphs' memory comes from: the budget (vLLM 0.21 and later profile them before the KV
// cache) or the card's remaining share (before).
Text CudaGraphNote(const ServeEstimate& e, const CalcConstants& k) {
  if (e.plan.cuda_graph_bytes <= 0) return {};
  if (e.settings.profile.rule.cuda_graphs_in_budget) {
    return T(fmt::format("CUDA-графы (до ~{:g} GiB): vLLM {} записывает их при профилировании и вычитает из бюджета до KV-кэша "
                         "(так с 0.21); --enforce-eager обходится без них.",
                         k.vllm_cuda_graph_gib, e.settings.profile.version.text),
             fmt::format("CUDA graphs (up to ~{:g} GiB): vLLM {} captures them while profiling and takes them from the budget "
                         "before the KV cache (so since 0.21); --enforce-eager does without them.",
                         k.vllm_cuda_graph_gib, e.settings.profile.version.text));
  }
  const double left_percent = (1 - e.settings.utilization) * 100;
  return T(fmt::format("CUDA-графы (до ~{:g} GiB) записываются после KV-кэша из оставшихся {:.0f}% памяти; --enforce-eager обходится без них.",
                       k.vllm_cuda_graph_gib, left_percent),
           fmt::format("CUDA graphs (up to ~{:g} GiB) are captured after the KV cache, from the remaining {:.0f}% of memory; --enforce-eager does without them.",
                       k.vllm_cuda_graph_gib, left_percent));
}

Table TpTable(const ServeEstimate& e, const CalcConstants& k, Lang lang) {
  Table table;
  table.columns = {T("TP", "TP"), T("Веса на GPU", "Weights per GPU"), T("Активации профиля", "Profile activations"),
                   T("Остаётся на KV", "Left for KV"), T("KV, токенов", "KV tokens"), T("Влезает", "Fits")};
  for (const TpOption& t : e.plan.options) {
    Text fits = t.fits ? T("да", "yes") : T("нет", "no");
    if (!t.heads_divide) fits = T("нет: головы не делятся", "no: heads do not divide");
    table.AddRow({std::to_string(t.tp), FormatGiBAndGB(t.weights_per_gpu),
                  t.activation_peak_per_gpu ? FormatGiBAndGB(*t.activation_peak_per_gpu) : T("нужна архитектура", "needs the architecture").In(lang),
                  FormatGiBAndGB(t.kv_room_per_gpu), Tokens(t.kv_tokens, lang), fits});
  }
  table.notes.push_back(KvRoomNote(e, k));
  if (const Text hybrid = HybridPoolNote(e.plan); !hybrid.empty()) table.notes.push_back(hybrid);
  if (const Text graphs = CudaGraphNote(e, k); !graphs.empty()) table.notes.push_back(graphs);
  return table;
}

// The answer: the tp that fits with its command, vLLM's shorter length, or why nothing fits.
void PrintServeVerdict(const ServePlan& plan, const CommandContext& context) {
  const Lang lang = context.lang();
  if (plan.chosen_tp && plan.data_parallel > 1) {
    PrintLine(T(fmt::format("Влезает с tensor parallel = {} в каждой из {} копий data parallel ({} GPU). Команда:", *plan.chosen_tp, plan.data_parallel, *plan.chosen_tp * plan.data_parallel),
                fmt::format("Fits with tensor parallel = {} on each of {} data-parallel ranks ({} GPUs). Command:", *plan.chosen_tp, plan.data_parallel, *plan.chosen_tp * plan.data_parallel)).In(lang), context);
    PrintLine("  " + plan.vllm_command, context);
  } else if (plan.chosen_tp) {
    PrintLine(T(fmt::format("Влезает с tensor parallel = {}. Команда:", *plan.chosen_tp),
                fmt::format("Fits with tensor parallel = {}. Command:", *plan.chosen_tp)).In(lang), context);
    PrintLine("  " + plan.vllm_command, context);
  } else if (plan.suggested_max_model_len) {
    PrintLine(T(fmt::format("С --max-model-len {} не влезает: одна последовательность не помещается в KV-кэш. vLLM сам предложит "
                            "(«the estimated maximum model length is {}»): при tensor parallel = {} влезает --max-model-len {}. Команда:",
                            plan.max_model_len, *plan.suggested_max_model_len, *plan.suggested_tp, *plan.suggested_max_model_len),
                fmt::format("It does not fit at --max-model-len {}: one sequence does not fit the KV cache. vLLM itself suggests it "
                            "(\"the estimated maximum model length is {}\"): at tensor parallel = {} --max-model-len {} fits. Command:",
                            plan.max_model_len, *plan.suggested_max_model_len, *plan.suggested_tp, *plan.suggested_max_model_len)).In(lang),
              context);
    PrintLine("  " + plan.vllm_command, context);
  } else {
    PrintLine(T("Не влезает: веса и профиль не оставляют места KV-кэшу. Возьмите более сильное квантование или больше GPU.",
                "Does not fit: weights and the profile leave no room for the KV cache. Quantise further or add GPUs.").In(lang), context);
  }
  if (!plan.note.empty()) PrintLine(plan.note.In(lang), context);
}

void PrintServeText(const ModelInput& model, const ServeEstimate& e, const CommandContext& context) {
  PrintServeBasis(model, e, context);
  PrintLine("", context);
  PrintTable(TpTable(e, CalcConstants::Builtin(), context.lang()), context);
  PrintLine("", context);
  PrintServeVerdict(e.plan, context);
}

void Run(const ServeOptions& o, const CommandContext& context) {
  auto model = ResolveOrFail(o.model, context);
  if (!model) return;
  const std::optional<ResolvedVersion> version = ResolveVllmVersion(o, context);
  if (!version) return;
  if (!o.gpu.empty() && !reference::GpuCatalog::Builtin().FindById(o.gpu)) {
    std::vector<std::string> ids;
    for (const reference::GpuSpec& g : reference::GpuCatalog::Builtin().gpus()) ids.push_back(g.id);
    context.Fail(T(fmt::format("--gpu \"{}\": такой карты нет в data/gpus.json; есть: {}", o.gpu, fmt::join(ids, ", ")),
                   fmt::format("--gpu \"{}\" is not a card of data/gpus.json; known: {}", o.gpu, fmt::join(ids, ", "))).In(context.lang()));
    return;
  }
  const ServeEstimate estimate = EstimateServe(*model, o, *version, context);
  if (estimate.settings.gpus < o.data_parallel) {
    context.Fail(T(fmt::format("--data-parallel-size {} требует хотя бы {} GPU, а их {}: задайте --gpus", o.data_parallel, o.data_parallel, estimate.settings.gpus),
                   fmt::format("--data-parallel-size {} needs at least {} GPUs and there are {}: give --gpus", o.data_parallel, o.data_parallel, estimate.settings.gpus)).In(context.lang()));
    return;
  }
  if (o.json) PrintServeJson(*model, estimate, context);
  else PrintServeText(*model, estimate, context);
  context.Succeed();
}

}  // namespace

void AddServeCommand(CLI::App& app, const CommandContext& context) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* sub = app.add_subcommand("serve", T("инференс в vLLM: поместится ли модель, тензорный параллелизм, токены KV-кэша", "Serving with vLLM: fit, tensor parallelism, KV-cache tokens").In(context.lang()));
  sub->add_option("model", options->model, T("имя из каталога, размер (7B), путь к config.json или id репозитория HF из локального кэша", "catalog name, size (7B), config.json path or cached HF repo id").In(context.lang()))->required();
  sub->add_option("--gpus", options->gpus, T("сколько GPU есть", "GPUs available").In(context.lang()))->check(CLI::Range(1, 1024));
  sub->add_option("--gpu", options->gpu,
                  T("карта по id из data/gpus.json (rtx-4090, a100-sxm-80gb, ...): умолчания vLLM для неё и сколько логов с неё сверено",
                    "the card, an id of data/gpus.json (rtx-4090, a100-sxm-80gb, ...): vLLM's defaults for it and how many logs from it were checked").In(context.lang()));
  sub->add_option("--gpu-mem", options->gpu_mem_gib, T("память одной GPU, ГиБ", "memory per GPU, GiB").In(context.lang()))->check(CLI::Range(0.1, 100000.0));
  sub->add_option("--quant", options->quant, T("bf16 | int8 | int4 (по умолчанию — как в чекпойнте, иначе bf16)", "bf16 | int8 | int4 (default: as the checkpoint stores it, else bf16)").In(context.lang()))->check(CLI::IsMember({"bf16", "int8", "int4"}));
  const Text default_utilization = DefaultUtilizationSpans();
  sub->add_option("--utilization", options->utilization,
                  T("--gpu-memory-utilization для vLLM (по умолчанию — как у выбранной версии vLLM: " + default_utilization.ru + ")",
                    "vLLM --gpu-memory-utilization (default: the chosen vLLM version's, " + default_utilization.en + ")").In(context.lang()))
      ->check(CLI::Range(0.05, 1.0));
  sub->add_option("--max-model-len", options->max_model_len, T("самая длинная последовательность (по умолчанию: максимум модели)", "longest sequence (default: the model's maximum)").In(context.lang()))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  sub->add_option("--kv-dtype", options->kv_dtype, "bf16 | fp8")->check(CLI::IsMember({"bf16", "fp8"}));
  sub->add_option("--max-num-seqs", options->max_num_seqs, T("--max-num-seqs для vLLM (по умолчанию как у vLLM для этой карты: 256 или 1024)", "vLLM --max-num-seqs (default: vLLM's for this card, 256 or 1024)").In(context.lang()))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  sub->add_option("--max-num-batched-tokens", options->max_num_batched_tokens, T("--max-num-batched-tokens для vLLM (по умолчанию как у vLLM: 2048 или 8192)", "vLLM --max-num-batched-tokens (default: vLLM's, 2048 or 8192)").In(context.lang()))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  sub->add_option("--vllm-version", options->vllm_version,
                  T("версия vLLM, чей профиль памяти считать (по умолчанию — установленная в выбранном Python, иначе новейшая сверенная с логами)",
                    "vLLM version whose memory profile to follow (default: the one installed in the chosen Python, else the newest checked against logs)").In(context.lang()));
  sub->add_option("--data-parallel-size", options->data_parallel,
                  T("--data-parallel-size для vLLM: копий движка, у каждой tp GPU и свой KV-кэш (по умолчанию 1)",
                    "vLLM --data-parallel-size: engine replicas, each of tp GPUs with its own KV cache (default 1)").In(context.lang()))
      ->check(CLI::Range(1, 1024));
  sub->add_flag("--enable-expert-parallel", options->expert_parallel,
                T("--enable-expert-parallel для vLLM: эксперты целиком по tp × dp GPU вместо деления каждого на tp",
                  "vLLM --enable-expert-parallel: whole experts over tp × dp GPUs instead of splitting each over tp").In(context.lang()));
  sub->add_flag("--flashinfer-sampler", options->flashinfer_sampler,
                T("vLLM сэмплирует top-k/top-p через FlashInfer (в логе: \"Using FlashInfer for top-p & top-k sampling\"): пик профилирования меньше",
                  "vLLM samples top-k/top-p with FlashInfer (its log: \"Using FlashInfer for top-p & top-k sampling\"): a smaller profile peak").In(context.lang()));
  sub->add_flag("--enforce-eager", options->enforce_eager, T("--enforce-eager для vLLM: без CUDA-графов", "vLLM --enforce-eager: no CUDA graphs").In(context.lang()));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

#include "calc/serve_notes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "calc/byte_units.h"
#include "calc/vllm_log_coverage.h"

namespace labcheck::calc {
namespace {

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

}  // namespace

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
  } else if (plan.batch_defaults_taken()) {
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

}  // namespace labcheck::calc

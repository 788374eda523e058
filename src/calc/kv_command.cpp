// lab_check kv MODEL --context N --batch B [--kv-dtype bf16|fp8] [--tp N]: KV-cache size.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

#include "calc/byte_units.h"
#include "calc/kv_cache.h"
#include "calc/model_features.h"
#include "calc/serving.h"
#include "calc/subcommands.h"

namespace labcheck::calc {
namespace {

struct KvOptions {
  std::string model;
  int64_t context = 0;
  int64_t batch = 1;
  std::string dtype = "bf16";
  int tp = 1;
  bool json = false;
};

// What the figures assume beyond the config: dtype, context, how TP and windows are treated.
std::vector<WorkNote> KvAssumptions(const Architecture& arch, const KvOptions& o, const KvSettings& s) {
  std::vector<WorkNote> notes;
  notes.push_back({"kv_dtype", T(fmt::format("K и V в {} ({:g} Б на значение)", o.dtype, s.dtype_bytes),
                                 fmt::format("K and V in {} ({:g} B per value)", o.dtype, s.dtype_bytes))});
  if (o.context <= 0) {
    notes.push_back({"context_default", T(fmt::format("контекст = max_position_embeddings модели ({})", s.context),
                                          fmt::format("context = the model's max_position_embeddings ({})", s.context))});
  }
  if (arch.mla.enabled()) {
    notes.push_back({"mla_replicated", T("латент MLA не делится при TP: так его хранят MLA-бэкенды vLLM (и SGLang); на всех GPU вместе — tp копий",
                                         "the MLA latent is not split by TP: vLLM's (and SGLang's) MLA backends keep it whole on every rank; all GPUs together hold tp copies")});
  } else if (arch.kv_heads < s.tp) {
    notes.push_back({"kv_heads_replicated", T("KV-голов меньше, чем GPU: vLLM размножает каждую голову, на GPU остаётся одна",
                                              "fewer KV heads than GPUs: vLLM replicates each head, one stays on every GPU")});
  }
  if (arch.mamba.count() > 0 && arch.mamba.kind == StateLayerKind::GatedDeltaNet) {
    notes.push_back({"mamba_state_dtype", T("состояние слоёв Gated DeltaNet — в типе KV и делится при TP (vLLM: mamba_ssm_cache_dtype auto = тип модели, головы и каналы свёртки шардируются)",
                                            "the Gated DeltaNet state is in the KV dtype and split by TP (vLLM: mamba_ssm_cache_dtype auto = the model's dtype, heads and convolution channels are sharded)")});
  } else if (arch.mamba.count() > 0) {
    notes.push_back({"mamba_state_dtype", T("состояние Mamba — в типе KV и делится при TP (vLLM: mamba_ssm_cache_dtype auto = тип модели, внутренняя ширина шардируется)",
                                            "the Mamba state is in the KV dtype and split by TP (vLLM: mamba_ssm_cache_dtype auto = the model's dtype, the inner width is sharded)")});
  }
  if (arch.SlidingLayerCount() > 0) {
    notes.push_back({"window_engine", T("слой с окном хранит не больше окна: так делает vLLM V1 (освобождает блоки вне окна: PR #14097 для моделей "
                                        "только с окнами, как Mistral; гибридный менеджер KV-кэша, RFC #11382, сделанный в выпусках 0.9, — для Gemma 2/3 и GPT-OSS; правило здесь — vLLM 0.11). "
                                        "Движок без этого (vLLM V0, --disable-hybrid-kv-cache-manager, плагины без спецификаций слоёв) хранит весь "
                                        "контекст в каждом слое: строка «без окон»",
                                        "a sliding-window layer holds at most its window: vLLM V1 does so (it frees blocks outside the window: PR #14097 "
                                        "for all-window models such as Mistral; the hybrid KV cache manager, RFC #11382, built over the 0.9 releases, for "
                                        "Gemma 2/3 and GPT-OSS; the rule here is vLLM 0.11's). An engine without it (vLLM V0, --disable-hybrid-kv-cache-manager, plugins without per-layer specs) "
                                        "keeps the whole context in every layer: the 'no windows' row")});
  }
  if (arch.ChunkedLayerCount() > 0) {
    notes.push_back({"chunk_engine", T("слой с чанковым вниманием хранит только токены своего чанка, не больше чанка: так их держит гибридный менеджер KV-кэша vLLM "
                                       "(ChunkedLocalAttentionManager освобождает блоки до начала чанка; vLLM на коммите 001cabc1be16). Здесь — не больше min(контекст, чанк), "
                                       "столько слой держит в конце чанка. Без гибридного менеджера (vLLM включает его для чанков только с "
                                       "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 там, где она по умолчанию 0) каждый слой держит весь контекст: строка «без окон»",
                                       "a chunked-attention layer holds only the tokens of its current chunk, at most a chunk: so vLLM's hybrid KV cache manager keeps them "
                                       "(ChunkedLocalAttentionManager frees the blocks before the chunk's start; vLLM at commit 001cabc1be16). Counted here as min(context, chunk), "
                                       "what the layer holds at the end of a chunk. Without the hybrid manager (vLLM uses it with chunks only under "
                                       "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 where that defaults to 0) every layer keeps the whole context: the 'no windows' row")});
  }
  return notes;
}

// The checks a KV figure needs before it means anything: an architecture, a --tp vLLM accepts,
// and a context length; else why not, printed with exit code 2.
std::optional<KvSettings> KvSettingsOrFail(const KvOptions& o, const ModelInput& model, const CommandContext& context) {
  const Lang lang = context.lang();
  if (!model.arch) {
    context.Fail(T(fmt::format("для KV-кэша нужна архитектура (слои, KV-головы, head_dim), а «{}» — только размер. "
                               "Укажите модель из каталога или путь к её config.json.", o.model),
                   fmt::format("the KV cache needs the architecture (layers, KV heads, head_dim) and \"{}\" is only a size. "
                               "Give a catalog model or the path to its config.json.", o.model)).In(lang));
    return std::nullopt;
  }
  const Architecture& arch = *model.arch;
  if (const Status tp = CheckTensorParallel(arch, o.tp, lang); !tp.ok()) {
    context.Fail(tp.message() + T(". Возьмите --tp, который делит число голов.", ". Use a --tp that divides the head counts.").In(lang));
    return std::nullopt;
  }
  KvSettings s{o.context > 0 ? o.context : arch.max_context, o.batch, o.dtype == "fp8" ? 1.0 : 2.0, o.tp};
  if (s.context <= 0) {
    context.Fail(T("в config.json нет max_position_embeddings: задайте --context", "config.json has no max_position_embeddings: give --context").In(lang));
    return std::nullopt;
  }
  return s;
}

struct KvEstimate {
  KvSettings settings;
  KvCache kv;
  double tokens = 0;  // context × batch
  // Every layer holding the whole context: what an engine that ignores the windows allocates.
  double no_window_bytes = 0;
  std::vector<WorkNote> features;
  std::vector<WorkNote> assumptions;
};

KvEstimate EstimateKv(const KvOptions& o, const Architecture& arch, const KvSettings& s) {
  KvEstimate e{s, ComputeKvCache(arch, s)};
  e.tokens = static_cast<double>(s.context * s.batch);
  e.no_window_bytes = e.kv.bytes_per_token_per_gpu * e.tokens;
  e.features = ArchitectureFeatures(arch);
  e.assumptions = KvAssumptions(arch, o, s);
  return e;
}

void PrintKvJson(const KvOptions& o, const ModelInput& model, const KvEstimate& e, const CommandContext& context) {
  const KvSettings& s = e.settings;
  nlohmann::json kv_json = KvCacheJson(e.kv, s);
  if (e.kv.sliding_layers + e.kv.chunked_layers > 0) kv_json["total_per_gpu_without_windows"] = BytesJson(e.no_window_bytes);
  PrintJson({{"command", "kv"},
             {"model", ModelJson(model)},
             {"settings", {{"context", s.context}, {"batch", s.batch}, {"kv_dtype", o.dtype}, {"tp", s.tp}}},
             {"kv", kv_json},
             {"features", WorkNotesJson(e.features)},
             {"assumptions", WorkNotesJson(e.assumptions)}},
            context);
}

// What one GPU caches per token: MLA's latent whole on every rank, else its share of the KV heads.
std::vector<Text> PerGpuShareRow(const Architecture& arch, const KvEstimate& e, Lang lang) {
  const KvCache& kv = e.kv;
  const int tp = e.settings.tp;
  if (kv.latent) {
    return {T("Латент MLA на GPU", "MLA latent per GPU"),
            T(fmt::format("{} значений на слой и токен, целиком на каждой из {} GPU", kv.values_per_layer_token_per_gpu, tp),
              fmt::format("{} values per layer and token, whole on each of {} GPUs", kv.values_per_layer_token_per_gpu, tp))};
  }
  return {T("KV-голов на GPU", "KV heads per GPU"),
          fmt::format("{} ({} / tp {}{})", kv.kv_heads_per_gpu, arch.kv_heads, tp,
                      arch.kv_heads < tp ? T(fmt::format(", каждая размножена на {} GPU, как в vLLM", tp / arch.kv_heads),
                                             fmt::format(", each replicated on {} GPUs, as vLLM does", tp / arch.kv_heads)).In(lang)
                                         : "")};
}

// How the bytes per layer and token were counted.
Text KvCountingNote(const Architecture& arch, const KvEstimate& e) {
  const KvCache& kv = e.kv;
  const double dtype_bytes = e.settings.dtype_bytes;
  if (kv.latent) {
    return T(fmt::format("(kv_lora_rank {} + qk_rope_head_dim {}) × {:g} байта на слой и токен: MLA кэширует сжатый латент и "
                         "общий rope-ключ, а не K и V каждой головы; TP его не делит.",
                         arch.mla.kv_lora_rank, arch.mla.qk_rope_head_dim, dtype_bytes),
             fmt::format("(kv_lora_rank {} + qk_rope_head_dim {}) × {:g} bytes per layer and token: MLA caches the compressed "
                         "latent and the shared rope key, not every head's K and V; TP does not split it.",
                         arch.mla.kv_lora_rank, arch.mla.qk_rope_head_dim, dtype_bytes));
  }
  const bool chunked = kv.chunked_layers > 0;
  return T(fmt::format("2 (K и V) × {} KV-голов × head_dim {} × {:g} байта на слой и токен; {}.", kv.kv_heads_per_gpu, arch.head_dim, dtype_bytes,
                       chunked ? "чанковый слой хранит не больше чанка" : "слой со скользящим окном хранит не больше окна"),
           fmt::format("2 (K and V) × {} KV heads × head_dim {} × {:g} bytes per layer and token; {}.", kv.kv_heads_per_gpu, arch.head_dim, dtype_bytes,
                       chunked ? "a chunked layer holds at most its chunk" : "a sliding-window layer holds at most its window"));
}

Table KvTable(const Architecture& arch, const KvEstimate& e, Lang lang) {
  const KvCache& kv = e.kv;
  Table table;
  table.columns = {T("Что", "What"), T("Значение", "Value")};
  table.AddRow(PerGpuShareRow(arch, e, lang));
  if (kv.chunked_layers > 0) {
    table.AddRow({T("Слои: полное внимание / чанковое", "Layers: full attention / chunked"), fmt::format("{} / {}", kv.full_layers, kv.chunked_layers)});
  } else {
    table.AddRow({T("Слои: полное внимание / скользящее окно", "Layers: full attention / sliding window"),
                  fmt::format("{} / {}", kv.full_layers, kv.sliding_layers)});
  }
  if (kv.state_layers > 0) {
    const bool deltanet = arch.mamba.kind == StateLayerKind::GatedDeltaNet;
    table.AddRow({deltanet ? T("Слои Gated DeltaNet: состояние на последовательность, на GPU", "Gated DeltaNet layers: state per sequence, per GPU")
                           : T("Слои Mamba: состояние на последовательность, на GPU", "Mamba layers: state per sequence, per GPU"),
                  fmt::format("{} × {:.0f} KiB = {:.2f} MiB", kv.state_layers,
                              kv.state_bytes_per_sequence_per_gpu / static_cast<double>(kv.state_layers) / 1024,
                              kv.state_bytes_per_sequence_per_gpu / (1024.0 * 1024.0))});
  }
  table.AddRow({T("Байт на токен (все слои)", "Bytes per token (all layers)"),
                fmt::format("{:.0f} ({:.1f} KiB)", kv.bytes_per_token_per_gpu, kv.bytes_per_token_per_gpu / 1024)});
  table.AddRow({T("Байт на токен в среднем (с окнами)", "Bytes per token on average (windows applied)"),
                fmt::format("{:.0f}", kv.total_bytes_per_gpu / e.tokens)});
  table.AddRow({T("Одна последовательность, на GPU", "One sequence, per GPU"), FormatGiBAndGB(kv.sequence_bytes_per_gpu)});
  table.AddRow({T("Весь батч, на GPU", "Whole batch, per GPU"), FormatGiBAndGB(kv.total_bytes_per_gpu)});
  table.AddRow({T("Весь батч, на всех GPU", "Whole batch, all GPUs"), FormatGiBAndGB(kv.total_bytes_all_gpus)});
  if (kv.sliding_layers + kv.chunked_layers > 0) {
    table.AddRow({T("Весь батч, на GPU, без окон", "Whole batch, per GPU, no windows"), FormatGiBAndGB(e.no_window_bytes)});
  }
  table.notes.push_back(KvCountingNote(arch, e));
  return table;
}

void PrintKvText(const KvOptions& o, const ModelInput& model, const KvEstimate& e, const CommandContext& context) {
  const KvSettings& s = e.settings;
  PrintLine(ModelLine(model, context.lang()), context);
  PrintLine(T(fmt::format("контекст {} × батч {}, KV {}, tp {}", s.context, s.batch, o.dtype, s.tp),
              fmt::format("context {} × batch {}, KV {}, tp {}", s.context, s.batch, o.dtype, s.tp)).In(context.lang()), context);
  PrintWorkNotes(e.features, e.assumptions, context);
  PrintLine("", context);
  PrintTable(KvTable(*model.arch, e, context.lang()), context);
}

void Run(const KvOptions& o, const CommandContext& context) {
  auto model = ResolveOrFail(o.model, context);
  if (!model) return;
  const std::optional<KvSettings> settings = KvSettingsOrFail(o, *model, context);
  if (!settings) return;
  const KvEstimate estimate = EstimateKv(o, *model->arch, *settings);
  if (o.json) PrintKvJson(o, *model, estimate, context);
  else PrintKvText(o, *model, estimate, context);
  context.Succeed();
}

}  // namespace

void AddKvCommand(CLI::App& app, const CommandContext& context) {
  auto options = std::make_shared<KvOptions>();
  CLI::App* sub = app.add_subcommand("kv", T("размер KV-кэша на токен, на последовательность и на GPU", "KV-cache size per token, per sequence and per GPU").In(context.lang()));
  sub->add_option("model", options->model, T("имя из каталога, путь к config.json или id репозитория HF из локального кэша", "catalog name, config.json path or cached HF repo id").In(context.lang()))->required();
  sub->add_option("--context", options->context, T("токенов в последовательности (по умолчанию: максимум модели)", "tokens per sequence (default: the model's maximum)").In(context.lang()))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  sub->add_option("--batch", options->batch, T("последовательностей одновременно", "sequences held at once").In(context.lang()))->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  sub->add_option("--kv-dtype", options->dtype, "bf16 | fp8")->check(CLI::IsMember({"bf16", "fp8"}));
  sub->add_option("--tp", options->tp, T("степень тензорного параллелизма", "tensor-parallel degree").In(context.lang()))->check(CLI::Range(1, 1024));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

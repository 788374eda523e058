// lab_check serve MODEL [--gpus N --gpu ID --gpu-mem GiB --quant bf16|int8|int4 --utilization U --vllm-version V
//                        --data-parallel-size D --enable-expert-parallel]:
// does it fit under vLLM, at which tensor-parallel degree, with how much KV cache.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "calc/byte_units.h"
#include "calc/model_features.h"
#include "calc/planned_machine.h"
#include "calc/serve_notes.h"
#include "calc/serving.h"
#include "calc/subcommands.h"
#include "calc/vllm_log_coverage.h"

namespace labcheck::calc {
namespace {

struct ServeOptions {
  std::string model;
  MachineFlags machine;     // --gpus, --gpu, --gpu-mem
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

// GPUs to plan for: the flags, else this machine, else the course's lab machine (planned_machine.h). Says which.
Text ResolveGpus(const ServeOptions& o, const CommandContext& context, ServeSettings& s) {
  const PlannedMachine m = ChooseMachine(o.machine, LiveGpus(context), CalcConstants::Builtin());
  s.gpus = m.gpus;
  s.gpu_memory_gib = m.memory_gib;
  s.gpu_name = m.gpu_name;
  if (m.card) {
    s.gpu_id = m.card->id;
    s.gpu_cc_major = m.card->cc_major;
  }
  return m.source;
}

std::string Tokens(const std::optional<int64_t>& tokens, Lang lang) {
  return tokens ? fmt::format("{}", *tokens) : T("нужна архитектура", "needs the architecture").In(lang);
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
                          plan.batch_defaults_taken() ? " (умолчания vLLM для этой карты: 8192/1024 при ≥ 70 GiB, кроме A100, иначе 2048/256)" : ""),
              fmt::format("vLLM {} profile (rule {}): --max-num-seqs {}, --max-num-batched-tokens {}{}", e.settings.profile.version.text,
                          e.settings.profile.rule.id, plan.max_num_seqs, plan.max_num_batched_tokens,
                          plan.batch_defaults_taken() ? " (vLLM's defaults for this card: 8192/1024 at ≥ 70 GiB except the A100, else 2048/256)" : "")).In(lang),
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

// The narrower degrees that fail on the length alone: the --max-model-len each holds and its command.
void PrintShorterLengths(const ServePlan& plan, const CommandContext& context) {
  for (const ShorterLength& l : plan.shorter_lengths) {
    PrintLine(T(fmt::format("При tensor parallel = {} не помещается одна последовательность из {} токенов; влезает --max-model-len {} "
                            "(ошибка vLLM назовёт его: «the estimated maximum model length is {}»). Команда:",
                            l.tp, plan.max_model_len, l.max_model_len, l.max_model_len),
                fmt::format("At tensor parallel = {} one sequence of {} tokens does not fit; --max-model-len {} does "
                            "(vLLM's error names it: \"the estimated maximum model length is {}\"). Command:",
                            l.tp, plan.max_model_len, l.max_model_len, l.max_model_len)).In(context.lang()),
              context);
    PrintLine("  " + l.vllm_command, context);
  }
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
  PrintShorterLengths(plan, context);
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
  if (const std::optional<Text> error = UnknownGpuIdError(o.machine.gpu_id)) return context.Fail(error->In(context.lang()));
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
  AddMachineOptions(sub, options->machine,
                    T("умолчания vLLM для неё и сколько логов с неё сверено", "vLLM's defaults for it and how many logs from it were checked"),
                    context.lang());
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

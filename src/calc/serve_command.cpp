// lab_check serve MODEL [--gpus N --gpu-mem GiB --quant bf16|int8|int4 --utilization 0.9]:
// does it fit under vLLM, at which tensor-parallel degree, with how much KV cache.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "calc/byte_units.h"
#include "calc/model_features.h"
#include "calc/serving.h"
#include "calc/subcommands.h"

namespace labcheck::calc {
namespace {

struct ServeOptions {
  std::string model;
  int gpus = 0;             // 0: from the machine, else the course's lab
  double gpu_mem_gib = 0;   // 0: same
  std::string quant;  // empty: as the checkpoint stores it (quantization_config), else BF16
  double utilization = 0;   // 0: vLLM's default
  int64_t max_model_len = 0;
  std::string kv_dtype = "bf16";
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  bool enforce_eager = false;
  bool json = false;
};

// GPUs to plan for: the flags, else this machine, else the course's lab machine. Says which.
Text ResolveGpus(const ServeOptions& o, const CommandContext& context, ServeSettings& s) {
  const CalcConstants& k = CalcConstants::Builtin();
  const std::vector<LiveGpu> live = LiveGpus(context);
  if (o.gpu_mem_gib > 0) {
    s.gpus = o.gpus > 0 ? o.gpus : 1;
    s.gpu_memory_gib = o.gpu_mem_gib;
    return T("GPU заданы в командной строке", "GPUs as given on the command line");
  }
  if (!live.empty()) {
    s.gpus = o.gpus > 0 ? std::min<int>(o.gpus, static_cast<int>(live.size())) : static_cast<int>(live.size());
    s.gpu_memory_gib = SmallestMemoryGib(live);
    s.gpu_name = live.front().name;
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

// What the plan assumes beyond the config and the flags.
std::vector<WorkNote> ServeAssumptions(const ModelInput& model, const ServePlan& plan, const CalcConstants& k) {
  std::vector<WorkNote> notes;
  notes.push_back({"vllm_profile", T(fmt::format("профиль vLLM V1 (константы по логам vLLM 0.11): вне PyTorch {:g} GiB ({:g} при TP > 1), сэмплер {:g} байт на строку и токен словаря",
                                                 k.vllm_non_torch_gib, k.vllm_non_torch_tp_gib, k.vllm_sampler_bytes_per_vocab_entry),
                                     fmt::format("vLLM V1 profile (constants from vLLM 0.11 logs): {:g} GiB outside PyTorch ({:g} at TP > 1), sampler {:g} bytes per row and vocabulary entry",
                                                 k.vllm_non_torch_gib, k.vllm_non_torch_tp_gib, k.vllm_sampler_bytes_per_vocab_entry))});
  if (plan.batch_defaults_taken) {
    notes.push_back({"batch_defaults", T("--max-num-seqs и --max-num-batched-tokens — умолчания vLLM для этой карты", "--max-num-seqs and --max-num-batched-tokens are vLLM's defaults for this card")});
  }
  if (!model.arch) return notes;
  const Architecture& a = *model.arch;
  if (a.mla.enabled()) {
    notes.push_back({"mla_replicated", T("латент MLA целиком на каждой GPU (MLA-бэкенды vLLM): TP освобождает место под KV только за счёт весов",
                                         "the MLA latent is whole on every GPU (vLLM's MLA backends): TP makes room for KV only by splitting the weights")});
  }
  if (a.moe.enabled()) {
    notes.push_back({"moe_sharding", T("веса экспертов делятся поровну на tp GPU: так и при TP, и с --enable-expert-parallel (тогда каждая GPU держит experts / tp экспертов целиком)",
                                       "expert weights split evenly over tp GPUs: so with TP and with --enable-expert-parallel alike (then each GPU holds experts / tp whole experts)")});
  }
  if (a.SlidingLayerCount() > 0) {
    notes.push_back({"window_vllm_rule", T("на запрос слой с окном резервирует min(окно − 1 + max_num_batched_tokens, max_model_len) токенов + 1 блок: правило "
                                           "vLLM 0.11 (kv_cache_interface.py, SlidingWindowSpec.max_memory_usage_bytes) при гибридном менеджере KV-кэша; "
                                           "«KV, токенов» в таблице — как если бы каждый слой хранил каждый токен",
                                           "per request a sliding-window layer reserves min(window − 1 + max_num_batched_tokens, max_model_len) tokens + 1 block: "
                                           "vLLM 0.11's rule (kv_cache_interface.py, SlidingWindowSpec.max_memory_usage_bytes) with the hybrid KV cache manager; "
                                           "'KV tokens' in the table counts as if every layer held every token")});
  }
  return notes;
}

struct ServeEstimate {
  ServeSettings settings;
  Text gpu_source;
  std::string quant_label;  // what the weights are stored in: the flag, the checkpoint's scheme, or bf16
  ServePlan plan;
  std::vector<WorkNote> features;
  std::vector<WorkNote> assumptions;
};

ServeEstimate EstimateServe(const ModelInput& model, const ServeOptions& o, const CommandContext& context) {
  const CalcConstants& k = CalcConstants::Builtin();
  ServeEstimate e;
  ServeSettings& s = e.settings;
  e.gpu_source = ResolveGpus(o, context, s);
  const bool quantized_checkpoint = model.arch && model.arch->quant.enabled();
  s.quant = !o.quant.empty() ? *ParseServeQuant(o.quant) : quantized_checkpoint ? ServeQuant::Checkpoint : ServeQuant::Bf16;
  e.quant_label = !o.quant.empty() ? o.quant : quantized_checkpoint ? model.arch->quant.name : "bf16";
  s.utilization = o.utilization > 0 ? o.utilization : k.vllm_gpu_memory_utilization;
  s.max_model_len = o.max_model_len;
  s.kv_dtype_bytes = o.kv_dtype == "fp8" ? 1 : 2;
  s.max_num_seqs = o.max_num_seqs;
  s.max_num_batched_tokens = o.max_num_batched_tokens;
  s.enforce_eager = o.enforce_eager;
  e.plan = PlanServing(model, s, k);
  e.features = FeaturesOf(model);
  e.assumptions = ServeAssumptions(model, e.plan, k);
  return e;
}

void PrintServeJson(const ModelInput& model, const ServeEstimate& e, const CommandContext& context) {
  nlohmann::json j = {{"command", "serve"}, {"model", ModelJson(model)}, {"gpu_source", e.gpu_source.In(Lang::En)}};
  j["serve"] = ServePlanJson(e.plan, e.settings);
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
  PrintLine(T(fmt::format("Профиль vLLM: --max-num-seqs {}, --max-num-batched-tokens {}{}", plan.max_num_seqs, plan.max_num_batched_tokens,
                          plan.batch_defaults_taken ? " (умолчания vLLM для этой карты: 8192/1024 при ≥ 70 GiB, кроме A100, иначе 2048/256)" : ""),
              fmt::format("vLLM profile: --max-num-seqs {}, --max-num-batched-tokens {}{}", plan.max_num_seqs, plan.max_num_batched_tokens,
                          plan.batch_defaults_taken ? " (vLLM's defaults for this card: 8192/1024 at ≥ 70 GiB except the A100, else 2048/256)" : "")).In(lang),
            context);
}

// How the room for the KV cache is counted, as vLLM counts it.
Text KvRoomNote(const ServeEstimate& e, const CalcConstants& k) {
  const ServeSettings& s = e.settings;
  const ServePlan& plan = e.plan;
  return T(fmt::format("vLLM: {:g} × {:g} GiB на карту минус веса, пик профиля (forward или сэмплер) и {:g} GiB вне PyTorch "
                       "({:g} GiB при TP > 1); остаток — KV-кэш блоками по {} токенов. Влезает, если в него помещается одна "
                       "последовательность{}.",
                       s.utilization, s.gpu_memory_gib, k.vllm_non_torch_gib, k.vllm_non_torch_tp_gib, k.vllm_block_size,
                       plan.max_model_len > 0 ? fmt::format(" из {} токенов", plan.max_model_len) : ""),
           fmt::format("vLLM: {:g} × {:g} GiB per card minus weights, the profile run's peak (forward or sampler) and {:g} GiB "
                       "outside PyTorch ({:g} GiB at TP > 1); the rest is KV cache in blocks of {} tokens. Fits when it holds "
                       "one sequence{}.",
                       s.utilization, s.gpu_memory_gib, k.vllm_non_torch_gib, k.vllm_non_torch_tp_gib, k.vllm_block_size,
                       plan.max_model_len > 0 ? fmt::format(" of {} tokens", plan.max_model_len) : ""));
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
  if (e.plan.cuda_graph_bytes > 0) {
    const double left_percent = (1 - e.settings.utilization) * 100;
    table.notes.push_back(T(fmt::format("CUDA-графы (до ~{:g} GiB) записываются после KV-кэша из оставшихся {:.0f}% памяти; --enforce-eager обходится без них.",
                                        k.vllm_cuda_graph_gib, left_percent),
                            fmt::format("CUDA graphs (up to ~{:g} GiB) are captured after the KV cache, from the remaining {:.0f}% of memory; --enforce-eager does without them.",
                                        k.vllm_cuda_graph_gib, left_percent)));
  }
  return table;
}

// The answer: the tp that fits with its command, vLLM's shorter length, or why nothing fits.
void PrintServeVerdict(const ServePlan& plan, const CommandContext& context) {
  const Lang lang = context.lang();
  if (plan.chosen_tp) {
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
  const ServeEstimate estimate = EstimateServe(*model, o, context);
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
  sub->add_option("--gpu-mem", options->gpu_mem_gib, T("память одной GPU, ГиБ", "memory per GPU, GiB").In(context.lang()))->check(CLI::Range(0.1, 100000.0));
  sub->add_option("--quant", options->quant, T("bf16 | int8 | int4 (по умолчанию — как в чекпойнте, иначе bf16)", "bf16 | int8 | int4 (default: as the checkpoint stores it, else bf16)").In(context.lang()))->check(CLI::IsMember({"bf16", "int8", "int4"}));
  sub->add_option("--utilization", options->utilization, T("--gpu-memory-utilization для vLLM (по умолчанию 0.9)", "vLLM --gpu-memory-utilization (default 0.9)").In(context.lang()))->check(CLI::Range(0.05, 1.0));
  sub->add_option("--max-model-len", options->max_model_len, T("самая длинная последовательность (по умолчанию: максимум модели)", "longest sequence (default: the model's maximum)").In(context.lang()))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  sub->add_option("--kv-dtype", options->kv_dtype, "bf16 | fp8")->check(CLI::IsMember({"bf16", "fp8"}));
  sub->add_option("--max-num-seqs", options->max_num_seqs, T("--max-num-seqs для vLLM (по умолчанию как у vLLM для этой карты: 256 или 1024)", "vLLM --max-num-seqs (default: vLLM's for this card, 256 or 1024)").In(context.lang()))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  sub->add_option("--max-num-batched-tokens", options->max_num_batched_tokens, T("--max-num-batched-tokens для vLLM (по умолчанию как у vLLM: 2048 или 8192)", "vLLM --max-num-batched-tokens (default: vLLM's, 2048 or 8192)").In(context.lang()))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  sub->add_flag("--enforce-eager", options->enforce_eager, T("--enforce-eager для vLLM: без CUDA-графов", "vLLM --enforce-eager: no CUDA graphs").In(context.lang()));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

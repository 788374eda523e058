// lab_check vram MODEL --method full|lora|qlora ...: the memory of a training step, the lesson's
// rule of thumb beside it, and the reference GPUs the job fits on.
#include <fmt/format.h>

#include <memory>

#include "calc/byte_units.h"
#include "calc/gpu_fit.h"
#include "calc/rule_of_thumb.h"
#include "calc/subcommands.h"
#include "calc/training_memory.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {
namespace {

struct VramOptions {
  std::string model;
  std::string method = "full";
  std::string optimizer = "adamw";
  std::string precision = "bf16";
  int64_t seq = 2048;
  int64_t batch = 1;
  bool checkpointing = false;
  int64_t lora_rank = 16;
  int gpus = 1;
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

std::string SizeCell(const std::optional<double>& bytes, Lang lang) {
  return bytes ? FormatGiBAndGB(*bytes) : T("нужна архитектура", "needs the architecture").In(lang);
}

void Run(const VramOptions& o, const CommandContext& context) {
  const Lang lang = context.lang();
  auto model = ResolveOrFail(o.model, context);
  if (!model) return;
  TrainingSettings s;
  s.method = *ParseMethod(o.method);
  s.optimizer = *ParseOptimizer(o.optimizer);
  s.precision = *ParsePrecision(o.precision);
  s.seq = o.seq;
  s.batch = o.batch;
  s.checkpointing = o.checkpointing;
  s.lora_rank = o.lora_rank;
  s.gpus = o.gpus;
  const CalcConstants& k = CalcConstants::Builtin();
  const TrainingMemory memory = EstimateTrainingMemory(*model, s, k);
  // The lesson's rule is for one card; compare it with the one-card estimate.
  TrainingSettings one_gpu = s;
  one_gpu.gpus = 1;
  const RuleOfThumb rule = LessonRuleOfThumb(*model, one_gpu, EstimateTrainingMemory(*model, one_gpu, k), k);
  // Need per card when split over n cards: the detailed peak when known, else the lesson's rule.
  auto need = [&](int n) {
    TrainingSettings split = s;
    split.gpus = n;
    const TrainingMemory m = EstimateTrainingMemory(*model, split, k);
    if (m.peak_total_bytes) return *m.peak_total_bytes;
    return rule.bytes.value_or(m.known_bytes * n) / n + k.cuda_context_gib * kBytesPerGiB;
  };
  const std::vector<GpuFit> fits = FitOnGpus(reference::GpuCatalog::Builtin().gpus(), need);

  if (o.json) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const GpuFit& f : fits) {
      gpus.push_back({{"id", f.gpu_id}, {"name", f.gpu_name}, {"memory_gib", f.memory_gib},
                      {"count", f.count ? nlohmann::json(*f.count) : nlohmann::json(nullptr)},
                      {"per_gpu", BytesJson(f.per_gpu_bytes)}});
    }
    PrintJson({{"command", "vram"},
               {"model", ModelJson(*model)},
               {"settings", {{"method", o.method}, {"optimizer", o.optimizer}, {"precision", o.precision},
                             {"seq", o.seq}, {"batch", o.batch}, {"checkpointing", o.checkpointing},
                             {"lora_rank", s.method == Method::Full ? nlohmann::json(nullptr) : nlohmann::json(o.lora_rank)},
                             {"gpus", o.gpus}}},
               {"memory", TrainingMemoryJson(memory)},
               {"rule_of_thumb", RuleOfThumbJson(rule, lang)},
               {"rent", gpus}},
              context);
    context.Succeed();
    return;
  }

  PrintLine(ModelLine(*model, lang), context);
  PrintLine(fmt::format("{}, {}, {}, seq {} × batch {}{}{}", MethodTitle(s.method).In(lang), o.optimizer, o.precision, o.seq, o.batch,
                        o.checkpointing ? ", gradient checkpointing" : "",
                        o.gpus > 1 ? T(fmt::format(", {} GPU (FSDP: веса, градиенты и состояния поделены)", o.gpus),
                                       fmt::format(", {} GPUs (FSDP: weights, gradients and states sharded)", o.gpus)).In(lang)
                                   : ""),
            context);
  PrintLine("", context);
  Table table;
  table.columns = {T("Что", "Part"), T("На карту", "Per GPU"), T("Как считали", "How counted")};
  for (const MemoryComponent& c : memory.components) table.AddRow({c.label, SizeCell(c.bytes, lang), c.note});
  table.notes.push_back(T("Пик = веса + состояния оптимизатора + max(активации + логиты, градиенты + буфер шага): "
                          "градиенты появляются, пока backward освобождает активации.",
                          "Peak = weights + optimizer states + max(activations + logits, gradients + step buffer): "
                          "gradients appear while backward frees activations."));
  PrintTable(table, context);
  PrintLine("", context);
  if (memory.peak_allocated_bytes) {
    PrintLine(T("Пик аллокатора (torch.cuda.max_memory_allocated): ", "Allocator peak (torch.cuda.max_memory_allocated): ").In(lang) +
                  FormatGiBAndGB(*memory.peak_allocated_bytes), context);
    PrintLine(T("Нужно на карту (с контекстом CUDA и кэшем): ", "Needed per GPU (with CUDA context and cache): ").In(lang) +
                  FormatGiBAndGB(*memory.peak_total_bytes), context);
  } else {
    PrintLine(T("Без архитектуры известна только часть: не меньше ", "Without the architecture only part is known: at least ").In(lang) +
                  FormatGiBAndGB(memory.known_bytes), context);
  }
  PrintLine("", context);
  PrintLine(T("Правило урока: ", "The lesson's rule of thumb: ").In(lang) + rule.formula.In(lang), context);
  PrintLine(rule.comparison.In(lang), context);
  PrintLine("", context);
  Table rent;
  rent.title = T("Какую карту арендовать", "Which card to rent");
  rent.columns = {T("GPU", "GPU"), T("Память", "Memory"), T("Карт", "Cards"), T("Нужно на карту", "Needed per card")};
  for (const GpuFit& f : fits) {
    rent.AddRow({f.gpu_name, fmt::format("{:g} GiB", f.memory_gib),
                 f.count ? Text(std::to_string(*f.count)) : T("не влезает в 8", "not within 8"),
                 FormatGiBAndGB(f.per_gpu_bytes)});
  }
  PrintTable(rent, context);
  context.Succeed();
}

}  // namespace

void AddVramCommand(CLI::App& app, const CommandContext& context) {
  auto options = std::make_shared<VramOptions>();
  CLI::App* sub = app.add_subcommand("vram", T("память GPU для обучения: полное дообучение, LoRA, QLoRA", "GPU memory for training: full fine-tuning, LoRA, QLoRA").In(context.lang()));
  sub->add_option("model", options->model, T("имя из каталога, размер (7B), путь к config.json или id репозитория HF из локального кэша", "catalog name, size (7B), config.json path or cached HF repo id").In(context.lang()))->required();
  sub->add_option("--method", options->method, "full | lora | qlora")->check(CLI::IsMember({"full", "lora", "qlora"}));
  sub->add_option("--seq", options->seq, T("длина последовательности, токенов", "sequence length, tokens").In(context.lang()))->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  sub->add_option("--batch", options->batch, T("микробатч на одну GPU", "micro-batch per GPU").In(context.lang()))->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
  sub->add_flag("--checkpointing", options->checkpointing, T("gradient checkpointing каждого слоя декодера", "gradient checkpointing of every decoder layer").In(context.lang()));
  sub->add_option("--optimizer", options->optimizer, "adamw | adamw8bit | sgd")->check(CLI::IsMember({"adamw", "adamw8bit", "sgd"}));
  sub->add_option("--precision", options->precision, T("bf16 (всё в BF16, как в уроке) | mixed (мастер-веса в FP32)", "bf16 (all BF16, as the lesson) | mixed (FP32 master weights)").In(context.lang()))
      ->check(CLI::IsMember({"bf16", "mixed"}));
  sub->add_option("--lora-rank", options->lora_rank, T("ранг LoRA", "LoRA rank").In(context.lang()))->check(CLI::Range(int64_t{1}, int64_t{4096}));
  sub->add_option("--gpus", options->gpus, T("на сколько GPU разбита задача (FSDP)", "GPUs the job is sharded over (FSDP)").In(context.lang()))->check(CLI::Range(1, 1024));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

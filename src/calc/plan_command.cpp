// lab_check plan MODEL --method ...: what this machine can train, with which batch and sequence
// length, and how long an epoch of D tokens takes here.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "calc/byte_units.h"
#include "calc/machine_report.h"
#include "calc/subcommands.h"
#include "calc/training_plan.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {
namespace {

struct PlanOptions {
  std::string model;
  std::string method = "lora";
  std::string optimizer = "adamw";
  std::string precision = "bf16";
  int64_t seq = 2048;
  bool checkpointing = false;
  int64_t lora_rank = 16;
  std::string tokens = "100M";
  bool json = false;
};

void Run(const PlanOptions& o, const CommandContext& context) {
  const Lang lang = context.lang();
  auto model = ResolveOrFail(o.model, context);
  if (!model) return;
  const auto tokens = ParseParamCount(o.tokens);
  if (!tokens) {
    context.Fail(T(fmt::format("--tokens «{}»: нужно число токенов вроде 1e9 или 500M", o.tokens),
                   fmt::format("--tokens \"{}\": expected a token count such as 1e9 or 500M", o.tokens)).In(lang));
    return;
  }
  TrainingSettings s;
  s.method = *ParseMethod(o.method);
  s.optimizer = *ParseOptimizer(o.optimizer);
  s.precision = *ParsePrecision(o.precision);
  s.seq = o.seq;
  s.checkpointing = o.checkpointing;
  s.lora_rank = o.lora_rank;
  const CalcConstants& k = CalcConstants::Builtin();

  std::vector<LiveGpu> gpus;
  if (context.env->live_gpus) gpus = context.env->live_gpus();
  auto report_read = ReadMachineReport(context.env->last_report_path);
  const MachineReport* report = report_read.ok() ? &report_read.value() : nullptr;
  double memory_gib = 0;
  const reference::GpuSpec* reference_gpu = nullptr;
  if (!gpus.empty()) {
    memory_gib = gpus.front().memory_total_gib;
    for (const LiveGpu& g : gpus) memory_gib = std::min(memory_gib, g.memory_total_gib);
    reference_gpu = reference::GpuCatalog::Builtin().Match(gpus.front().name, gpus.front().memory_total_gib);
  }
  const Throughput throughput = ResolveThroughput(std::nullopt, report, reference_gpu, k);
  const Bandwidth bandwidth = ResolveAllreduceBandwidth(report, k);
  const TrainingPlan plan = PlanTraining(*model, s, static_cast<double>(*tokens), static_cast<int>(gpus.size()), memory_gib,
                                         throughput, bandwidth, k);
  const Text report_line = report ? T(fmt::format("Скорость и связь — из отчёта {}", report->path),
                                      fmt::format("Speed and interconnect from the report {}", report->path))
                                  : T(fmt::format("Отчёта {} нет: скорость и связь — справочные", context.env->last_report_path),
                                      fmt::format("No report at {}: speed and interconnect are reference figures", context.env->last_report_path));
  if (o.json) {
    nlohmann::json names = nlohmann::json::array();
    for (const LiveGpu& g : gpus) names.push_back({{"name", g.name}, {"memory_total_gib", g.memory_total_gib}});
    PrintJson({{"command", "plan"},
               {"model", ModelJson(*model)},
               {"settings", {{"method", o.method}, {"optimizer", o.optimizer}, {"precision", o.precision}, {"seq", o.seq},
                             {"checkpointing", o.checkpointing}, {"lora_rank", o.lora_rank}}},
               {"gpus", names},
               {"report", report ? nlohmann::json(report->path) : nlohmann::json(nullptr)},
               {"tflops_per_gpu", {{"low", throughput.tflops_low}, {"high", throughput.tflops_high}, {"source", throughput.source.In(lang)}}},
               {"allreduce_busbw_gbps", {{"value", bandwidth.busbw_gbps}, {"source", bandwidth.source.In(lang)}}},
               {"plan", TrainingPlanJson(plan)}},
              context);
    context.Succeed();
    return;
  }
  PrintLine(ModelLine(*model, lang), context);
  if (gpus.empty()) {
    PrintLine(T("GPU на этой машине не найдены: обучать здесь не на чем. Какую карту арендовать, покажет `lab_check vram`.",
                "No GPUs found on this machine: nothing to train on here. `lab_check vram` shows which card to rent.").In(lang), context);
    context.Succeed();
    return;
  }
  PrintLine(T(fmt::format("GPU: {} × {} (берётся наименьшая память: {:.1f} GiB)", gpus.size(), gpus.front().name, memory_gib),
              fmt::format("GPUs: {} × {} (planning with the smallest memory: {:.1f} GiB)", gpus.size(), gpus.front().name, memory_gib)).In(lang),
            context);
  PrintLine(report_line.In(lang), context);
  if (!plan.shard_gpus) {
    PrintLine(T(fmt::format("Не влезает даже с batch 1 на всех {} картах. Попробуйте --method qlora, --checkpointing или меньший --seq.", gpus.size()),
                fmt::format("Does not fit even at batch 1 on all {} cards. Try --method qlora, --checkpointing or a shorter --seq.", gpus.size())).In(lang),
              context);
    context.Succeed();
    return;
  }
  if (plan.checkpointing_added) {
    PrintLine(T("Без gradient checkpointing не влезает: план считает с ним.",
                "Without gradient checkpointing it does not fit: the plan uses it.").In(lang), context);
  }
  PrintLine(*plan.shard_gpus == 1
                ? T(fmt::format("Модель помещается на одну карту: {} копий, data parallel.", plan.replicas),
                    fmt::format("The model fits on one card: {} data-parallel copies.", plan.replicas)).In(lang)
                : T(fmt::format("Одна копия делится на {} карт (FSDP), копий: {}.", *plan.shard_gpus, plan.replicas),
                    fmt::format("One copy is sharded over {} cards (FSDP), copies: {}.", *plan.shard_gpus, plan.replicas)).In(lang),
            context);
  PrintLine("", context);
  Table table;
  table.columns = {T("seq", "seq"), T("Макс. batch на карту", "Max batch per card"), T("Память на карту", "Memory per card")};
  for (const PlanRow& row : plan.rows) {
    table.AddRow({std::to_string(row.seq), row.max_batch ? Text(std::to_string(*row.max_batch)) : T("не влезает", "does not fit"),
                  FormatGiBAndGB(row.peak_bytes)});
  }
  PrintTable(table, context);
  PrintLine("", context);
  PrintLine(T(fmt::format("Эпоха {:.3g} токенов (seq {}, batch {}): вычисления {} – {}, обмен между картами до {}.",
                          plan.tokens, o.seq, plan.batch_at_seq.value_or(1), FormatDuration(plan.cost.hours_low, lang),
                          FormatDuration(plan.cost.hours_high, lang), FormatDuration(plan.comm_hours, lang)),
              fmt::format("An epoch of {:.3g} tokens (seq {}, batch {}): compute {} – {}, communication up to {}.",
                          plan.tokens, o.seq, plan.batch_at_seq.value_or(1), FormatDuration(plan.cost.hours_low, lang),
                          FormatDuration(plan.cost.hours_high, lang), FormatDuration(plan.comm_hours, lang))).In(lang),
            context);
  PrintLine(T("Скорость: ", "Speed: ").In(lang) + throughput.source.In(lang), context);
  PrintLine(T("Связь: ", "Interconnect: ").In(lang) + bandwidth.source.In(lang), context);
  context.Succeed();
}

}  // namespace

void AddPlanCommand(CLI::App& app, const CommandContext& context) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand("plan", T("что эта машина может обучить, с каким батчем и длиной и как быстро", "What this machine can train, at which batch and length, and how fast").In(context.lang()));
  sub->add_option("model", options->model, T("имя из каталога, размер (7B), путь к config.json или id репозитория HF из локального кэша", "catalog name, size (7B), config.json path or cached HF repo id").In(context.lang()))->required();
  sub->add_option("--method", options->method, "full | lora | qlora")->check(CLI::IsMember({"full", "lora", "qlora"}));
  sub->add_option("--seq", options->seq, T("длина последовательности для оценки эпохи", "sequence length for the epoch estimate").In(context.lang()))->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  sub->add_flag("--checkpointing", options->checkpointing, T("gradient checkpointing (пересчёт активаций)", "gradient checkpointing").In(context.lang()));
  sub->add_option("--optimizer", options->optimizer, "adamw | adamw8bit | sgd")->check(CLI::IsMember({"adamw", "adamw8bit", "sgd"}));
  sub->add_option("--precision", options->precision, "bf16 | mixed")->check(CLI::IsMember({"bf16", "mixed"}));
  sub->add_option("--lora-rank", options->lora_rank, T("ранг LoRA", "LoRA rank").In(context.lang()))->check(CLI::Range(int64_t{1}, int64_t{4096}));
  sub->add_option("--tokens", options->tokens, T("токенов в одной эпохе (по умолчанию 100M)", "tokens in one epoch (default 100M)").In(context.lang()));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

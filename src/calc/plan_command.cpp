// lab_check plan MODEL --method ...: what this machine can train, with which batch and sequence
// length, and how long an epoch of D tokens takes here.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "calc/byte_units.h"
#include "calc/machine_report.h"
#include "calc/subcommands.h"
#include "calc/training_options.h"
#include "calc/training_plan.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {
namespace {

struct PlanOptions {
  std::string model;
  TrainingOptions training;
  std::string tokens = "100M";
  bool json = false;
};

void Run(const PlanOptions& o, const CommandContext& context) {
  const Lang lang = context.lang();
  auto model = ResolveOrFail(o.model, context);
  if (!model) return;
  const auto tokens = TokenCountOrFail(o.tokens, T("1e9 или 500M", "1e9 or 500M"), context);
  if (!tokens) return;
  const auto settings = SettingsOrFail(o.training, context);
  if (!settings) return;
  const TrainingSettings& s = *settings;
  const std::vector<DefaultTaken> defaults = DefaultsTaken(o.training, s);
  const CalcConstants& k = CalcConstants::Builtin();

  std::vector<LiveGpu> gpus = LiveGpus(context);
  auto report_read = ReadMachineReport(context.env->last_report_path);
  const MachineReport* report = report_read.ok() ? &report_read.value() : nullptr;
  // No live inventory (the driver is not reachable now): the cards the last report measured.
  bool gpus_from_report = false;
  if (gpus.empty() && report) {
    for (const ReportGpu& g : report->gpus) {
      if (g.memory_total_gib > 0) gpus.push_back({g.name, g.memory_total_gib});
    }
    gpus_from_report = !gpus.empty();
  }
  double memory_gib = 0;
  const reference::GpuSpec* reference_gpu = nullptr;
  if (!gpus.empty()) {
    memory_gib = SmallestMemoryGib(gpus);
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
               {"settings", TrainingSettingsJson(s)},
               {"defaults_taken", DefaultsJson(defaults)},
               {"gpus", names},
               {"gpus_from_report", gpus_from_report},
               {"report", report ? nlohmann::json(report->path) : nlohmann::json(nullptr)},
               {"tflops_per_gpu", {{"low", throughput.tflops_low}, {"high", throughput.tflops_high}, {"source", throughput.source.In(Lang::En)}}},
               {"allreduce_busbw_gbps", {{"value", bandwidth.busbw_gbps}, {"source", bandwidth.source.In(Lang::En)}}},
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
  if (gpus_from_report) {
    PrintLine(T("GPU сейчас не видны: беру карты и их память из отчёта.", "No GPUs visible now: the cards and their memory come from the report.").In(lang), context);
  }
  PrintLine(report_line.In(lang), context);
  PrintLine(T("Настройки: ", "Settings: ").In(lang) + SettingsLine(s), context);
  PrintDefaultsTaken(defaults, context);
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
                          plan.tokens, s.seq, plan.batch_at_seq.value_or(1), FormatDuration(plan.cost.hours_low, lang),
                          FormatDuration(plan.cost.hours_high, lang), FormatDuration(plan.comm_hours, lang)),
              fmt::format("An epoch of {:.3g} tokens (seq {}, batch {}): compute {} – {}, communication up to {}.",
                          plan.tokens, s.seq, plan.batch_at_seq.value_or(1), FormatDuration(plan.cost.hours_low, lang),
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
  options->training.method = "lora";
  options->training.sharding = "fsdp";  // the plan shards one copy over the fewest cards it fits on
  AddTrainingOptions(sub, options->training, false, context.lang());
  sub->add_option("--tokens", options->tokens, T("токенов в одной эпохе (по умолчанию 100M)", "tokens in one epoch (default 100M)").In(context.lang()));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

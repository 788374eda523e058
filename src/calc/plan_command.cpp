// lab_check plan MODEL --method ... [--gpus N --gpu ID --gpu-mem GiB]: what this machine (or the one
// given, or without either the course's) can train, with which batch and sequence length, and how
// long an epoch of D tokens takes there.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <utility>

#include "calc/byte_units.h"
#include "calc/expert_parallel.h"
#include "calc/machine_report.h"
#include "calc/planned_machine.h"
#include "calc/subcommands.h"
#include "calc/training_options.h"
#include "calc/training_plan.h"
#include "core/text_util.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {
namespace {

struct PlanOptions {
  std::string model;
  MachineFlags machine;  // --gpus, --gpu, --gpu-mem: plan for cards one does not have (yet)
  TrainingOptions training;
  std::string tokens = "100M";
  bool json = false;
};

// The cards to plan on and where they came from.
struct PlanGpus {
  std::vector<LiveGpu> gpus;
  bool from_report = false;
  double memory_gib = 0;  // the smallest card's: every shard must fit on it
  const reference::GpuSpec* reference_gpu = nullptr;
  MachineOrigin origin = MachineOrigin::ThisMachine;
  Text source;  // which machine and why, where it is not this one's
  // The last report measured this machine: its speed and interconnect fit only these cards.
  bool report_applies() const { return origin == MachineOrigin::ThisMachine; }
};

// The flags, else the live inventory, else (the driver is not reachable now) the cards the last
// report measured, else the course's machine (planned_machine.h, as serve chooses).
PlanGpus FindPlanGpus(const MachineFlags& flags, std::vector<LiveGpu> live, const MachineReport* report) {
  PlanGpus found;
  std::vector<LiveGpu> cards = std::move(live);
  if (cards.empty() && report) {
    for (const ReportGpu& g : report->gpus) {
      if (g.memory_total_gib > 0) cards.push_back({g.name, g.memory_total_gib});
    }
    found.from_report = !cards.empty();
  }
  const PlannedMachine m = ChooseMachine(flags, cards, CalcConstants::Builtin());
  found.origin = m.origin;
  found.source = m.source;
  found.memory_gib = m.memory_gib;
  found.reference_gpu = m.card;
  if (m.origin == MachineOrigin::ThisMachine) {
    cards.resize(static_cast<size_t>(m.gpus));
    found.gpus = std::move(cards);
  } else {
    found.from_report = false;
    found.gpus.assign(static_cast<size_t>(m.gpus), LiveGpu{m.gpu_name, m.memory_gib});
  }
  return found;
}

const char* OriginName(const PlanGpus& m) {
  switch (m.origin) {
    case MachineOrigin::Flags: return "flags";
    case MachineOrigin::ThisMachine: return m.from_report ? "report" : "this_machine";
    case MachineOrigin::CourseMachine: return "course_machine";
  }
  return "?";
}

struct PlanEstimate {
  TrainingSettings settings;
  std::vector<DefaultTaken> defaults;
  PlanGpus machine;
  Throughput throughput;
  Bandwidth bandwidth;
  TrainingPlan plan;
};

PlanEstimate EstimatePlan(const ModelInput& model, const PlanOptions& o, const TrainingSettings& s, double tokens,
                          PlanGpus machine, const MachineReport* report) {
  const CalcConstants& k = CalcConstants::Builtin();
  PlanEstimate e;
  e.settings = s;
  e.defaults = DefaultsTaken(o.training, s, model.arch && model.arch->moe.enabled());
  e.machine = std::move(machine);
  const MachineReport* measured = e.machine.report_applies() ? report : nullptr;
  e.throughput = ResolveThroughput(std::nullopt, measured, e.machine.reference_gpu, k);
  e.bandwidth = ResolveAllreduceBandwidth(measured, k);
  e.plan = PlanTraining(model, s, tokens, static_cast<int>(e.machine.gpus.size()), e.machine.memory_gib, e.throughput,
                        e.bandwidth, k);
  return e;
}

void PrintPlanJson(const ModelInput& model, const PlanEstimate& e, const MachineReport* report, const CommandContext& context) {
  nlohmann::json names = nlohmann::json::array();
  for (const LiveGpu& g : e.machine.gpus) {
    names.push_back({{"name", g.name.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.name)}, {"memory_total_gib", g.memory_total_gib}});
  }
  PrintJson({{"command", "plan"},
             {"model", ModelJson(model)},
             {"settings", TrainingSettingsJson(e.settings)},
             {"defaults_taken", DefaultsJson(e.defaults)},
             {"gpus", names},
             {"gpus_from_report", e.machine.from_report},
             {"gpu_origin", OriginName(e.machine)},
             {"gpu_source", e.machine.report_applies() ? nlohmann::json(nullptr) : nlohmann::json(e.machine.source.In(Lang::En))},
             {"report", report ? nlohmann::json(report->path) : nlohmann::json(nullptr)},
             {"tflops_per_gpu", {{"low", e.throughput.tflops_low}, {"high", e.throughput.tflops_high}, {"source", e.throughput.source.In(Lang::En)}}},
             {"allreduce_busbw_gbps", {{"value", e.bandwidth.busbw_gbps}, {"source", e.bandwidth.source.In(Lang::En)}}},
             {"plan", TrainingPlanJson(e.plan)}},
            context);
}

Text ReportSourceLine(const MachineReport* report, const std::string& report_path, bool report_applies) {
  if (report && !report_applies) {
    return T(fmt::format("Скорость и связь — справочные: отчёт {} описывает эту машину, а не ту, что в плане", report->path),
             fmt::format("Speed and interconnect are reference figures: the report {} is this machine's, not the planned one's", report->path));
  }
  return report ? T(fmt::format("Скорость и связь — из отчёта {}", report->path),
                    fmt::format("Speed and interconnect from the report {}", report->path))
                : T(fmt::format("Отчёта {} нет: скорость и связь — справочные", report_path),
                    fmt::format("No report at {}: speed and interconnect are reference figures", report_path));
}

// The cards, the report the speeds come from, and the settings planned with.
void PrintPlanBasis(const PlanEstimate& e, const MachineReport* report, const CommandContext& context) {
  const Lang lang = context.lang();
  const PlanGpus& m = e.machine;
  if (!m.report_applies()) {
    PrintLine(m.source.In(lang), context);
  } else {
    PrintLine(T(fmt::format("GPU: {} × {} (берётся наименьшая память: {:.1f} GiB)", m.gpus.size(), m.gpus.front().name, m.memory_gib),
              fmt::format("GPUs: {} × {} (planning with the smallest memory: {:.1f} GiB)", m.gpus.size(), m.gpus.front().name, m.memory_gib)).In(lang),
            context);
  }
  if (m.from_report) {
    PrintLine(T("GPU сейчас не видны: беру карты и их память из отчёта.", "No GPUs visible now: the cards and their memory come from the report.").In(lang), context);
  }
  PrintLine(ReportSourceLine(report, context.env->last_report_path, m.report_applies()).In(lang), context);
  PrintLine(T("Настройки: ", "Settings: ").In(lang) + SettingsLine(e.settings), context);
  PrintDefaultsTaken(e.defaults, context);
}

// How one model copy is laid out over the cards.
Text LayoutLine(const TrainingPlan& plan) {
  if (plan.expert_parallel > 1) {
    return T(fmt::format("Одна копия делится на {} {} (FSDP), копий: {}; маршрутизируемые эксперты — по {} картам (экспертный параллелизм {}).",
                         *plan.shard_gpus, RuPlural(*plan.shard_gpus, "карту", "карты", "карт"), plan.replicas, plan.expert_parallel,
                         plan.expert_parallel),
             fmt::format("One copy is sharded over {} cards (FSDP), copies: {}; the routed experts are split over {} of them (expert parallelism {}).",
                         *plan.shard_gpus, plan.replicas, plan.expert_parallel, plan.expert_parallel));
  }
  return *plan.shard_gpus == 1
             ? T(fmt::format("Модель помещается на одну карту; копий (data parallel): {}.", plan.replicas),
                 fmt::format("The model fits on one card: {} data-parallel copies.", plan.replicas))
             : T(fmt::format("Одна копия делится на {} {} (FSDP), копий: {}.", *plan.shard_gpus,
                             RuPlural(*plan.shard_gpus, "карту", "карты", "карт"), plan.replicas),
                 fmt::format("One copy is sharded over {} cards (FSDP), copies: {}.", *plan.shard_gpus, plan.replicas));
}

Text BatchCell(const std::optional<int64_t>& batch) {
  return batch ? Text(std::to_string(*batch)) : T("не влезает", "does not fit");
}

// The largest batch at each sequence length and what a card needs for it.
Table BatchTable(const TrainingPlan& plan) {
  Table table;
  table.columns = {T("seq", "seq"), T("Макс. batch на карту", "Max batch per card"), T("Память на карту", "Memory per card")};
  for (const PlanRow& row : plan.rows) {
    table.AddRow({Text(std::to_string(row.seq)), BatchCell(row.max_batch), Text(FormatGiBAndGB(row.peak_bytes))});
  }
  return table;
}

Text EpochLine(const TrainingPlan& plan, const TrainingSettings& s, Lang lang) {
  const std::string compute = FormatRange(FormatDuration(plan.cost.hours_low, lang), FormatDuration(plan.cost.hours_high, lang));
  return T(fmt::format("Эпоха {:.3g} токенов (seq {}, batch {}): вычисления {}, обмен между картами до {}.",
                       plan.tokens, s.seq, plan.batch_at_seq.value_or(1), compute, FormatDuration(plan.comm_hours, lang)),
           fmt::format("An epoch of {:.3g} tokens (seq {}, batch {}): compute {}, communication up to {}.",
                       plan.tokens, s.seq, plan.batch_at_seq.value_or(1), compute, FormatDuration(plan.comm_hours, lang)));
}

void PrintPlanText(const ModelInput& model, const PlanEstimate& e, const MachineReport* report, const CommandContext& context) {
  const Lang lang = context.lang();
  const TrainingPlan& plan = e.plan;
  PrintLine(ModelLine(model, lang), context);
  PrintPlanBasis(e, report, context);
  if (!plan.shard_gpus && plan.expert_parallel > static_cast<int>(e.machine.gpus.size())) {
    PrintLine(T(fmt::format("--expert-parallel {} больше, чем карт здесь ({}): группе EP не хватает GPU.", plan.expert_parallel, e.machine.gpus.size()),
                fmt::format("--expert-parallel {} is more than the {} cards here: the EP group has no room.", plan.expert_parallel, e.machine.gpus.size())).In(lang),
              context);
    return;
  }
  if (!plan.shard_gpus) {
    PrintLine(T(fmt::format("Не влезает даже с batch 1 на всех {} картах. Попробуйте --method qlora, --checkpointing или меньший --seq.", e.machine.gpus.size()),
                fmt::format("Does not fit even at batch 1 on all {} cards. Try --method qlora, --checkpointing or a shorter --seq.", e.machine.gpus.size())).In(lang),
              context);
    return;
  }
  if (plan.checkpointing_added) {
    PrintLine(T("Без gradient checkpointing не влезает: план считает с ним.",
                "Without gradient checkpointing it does not fit: the plan uses it.").In(lang), context);
  }
  PrintLine(LayoutLine(plan).In(lang), context);
  PrintLine("", context);
  PrintTable(BatchTable(plan), context);
  PrintLine("", context);
  PrintLine(EpochLine(plan, e.settings, lang).In(lang), context);
  PrintLine(T("Скорость: ", "Speed: ").In(lang) + e.throughput.source.In(lang), context);
  PrintLine(T("Связь: ", "Interconnect: ").In(lang) + e.bandwidth.source.In(lang), context);
}

void Run(const PlanOptions& o, const CommandContext& context) {
  auto model = ResolveOrFail(o.model, context);
  if (!model) return;
  const auto tokens = TokenCountOrFail(o.tokens, T("1e9 или 500M", "1e9 or 500M"), context);
  if (!tokens) return;
  const auto settings = SettingsOrFail(o.training, context);
  if (!settings) return;
  if (const auto error = ExpertParallelModelError(*model, *settings)) return context.Fail(error->In(context.lang()));
  if (const auto error = MoeKernelModelError(*model, *settings)) return context.Fail(error->In(context.lang()));
  if (const auto error = UnknownGpuIdError(o.machine.gpu_id)) return context.Fail(error->In(context.lang()));
  std::vector<LiveGpu> live = LiveGpus(context);
  const auto report_read = ReadMachineReport(context.env->last_report_path);
  const MachineReport* report = report_read.ok() ? &report_read.value() : nullptr;
  const PlanEstimate estimate = EstimatePlan(*model, o, *settings, static_cast<double>(*tokens), FindPlanGpus(o.machine, std::move(live), report), report);
  if (o.json) PrintPlanJson(*model, estimate, report, context);
  else PrintPlanText(*model, estimate, report, context);
  context.Succeed();
}

}  // namespace

void AddPlanCommand(CLI::App& app, const CommandContext& context) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand("plan", T("что эта машина (или заданная, или машина курса) может обучить, с каким батчем и длиной и как быстро",
                                                    "What this machine (or the one given, or the course's) can train, at which batch and length, and how fast").In(context.lang()));
  sub->add_option("model", options->model, T("имя из каталога, размер (7B), путь к config.json или id репозитория HF из локального кэша", "catalog name, size (7B), config.json path or cached HF repo id").In(context.lang()))->required();
  AddMachineOptions(sub, options->machine,
                    T("её память (по паспорту, точнее с --gpu-mem) и справочная скорость", "its memory (as sold; --gpu-mem is exact) and reference speed"),
                    context.lang());
  options->training.method = "lora";
  options->training.sharding = "fsdp";  // the plan shards one copy over the fewest cards it fits on
  AddTrainingOptions(sub, options->training, false, context.lang());
  sub->add_option("--tokens", options->tokens, T("токенов в одной эпохе (по умолчанию 100M)", "tokens in one epoch (default 100M)").In(context.lang()));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

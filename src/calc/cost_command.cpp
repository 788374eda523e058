// lab_check cost --model M | --params N --tokens D [--method ...] [--tflops X | --from-report]
// [--gpus N] [--price PER_GPU_HOUR]: training FLOPs, time, GPU-hours and money.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

#include "calc/byte_units.h"
#include "calc/machine_report.h"
#include "calc/param_count.h"
#include "calc/subcommands.h"
#include "calc/throughput.h"

namespace labcheck::calc {
namespace {

struct CostOptions {
  std::string model;
  std::string params;
  std::string tokens;
  std::string method = "full";
  bool checkpointing = false;
  std::optional<double> tflops;
  bool from_report = false;
  int gpus = 1;
  std::optional<double> price;
  bool json = false;
};

Text MethodCounting(Method method, bool recompute) {
  const double m = FlopsPerTokenPerParam(method, recompute);
  if (method == Method::Full) {
    return recompute ? T(fmt::format("{:g}ND: прямой проход 2N, обратный 4N и повторный прямой 2N (checkpointing)", m),
                         fmt::format("{:g}ND: forward 2N, backward 4N and a second forward 2N (checkpointing)", m))
                     : T(fmt::format("{:g}ND: прямой проход 2N, обратный 4N", m), fmt::format("{:g}ND: forward 2N, backward 4N", m));
  }
  return T(fmt::format("{:g}ND: у замороженных весов нет градиентов по весам, обратный проход — 2N{}; FLOPs адаптеров < 1%", m,
                       recompute ? ", плюс повторный прямой 2N" : ""),
           fmt::format("{:g}ND: frozen weights need no weight gradients, backward is 2N{}; adapter FLOPs < 1%", m,
                       recompute ? ", plus a second forward 2N" : ""));
}

// N: the parameters a token passes through in matrix multiplies (--model), else --params; or why
// not, printed with exit code 2. `model` is kept for the report's model line.
std::optional<double> ParamsOrFail(const CostOptions& o, std::optional<ModelInput>& model, const CommandContext& context) {
  if (!o.model.empty()) {
    model = ResolveOrFail(o.model, context);
    if (!model) return std::nullopt;
    const auto counts = model->counts();
    return counts ? static_cast<double>(counts->matmul_active(*model->arch)) : static_cast<double>(model->total_params());
  }
  if (auto params = ParseParamCount(o.params)) return static_cast<double>(*params);
  context.Fail(T("задайте --model или --params (например 7B)", "give --model or --params (for example 7B)").In(context.lang()));
  return std::nullopt;
}

// --from-report: the last report, which must hold a measured training speed; else why not.
std::optional<MachineReport> MeasuredReportOrFail(const CommandContext& context) {
  const std::string& path = context.env->last_report_path;
  auto read = ReadMachineReport(path);
  // No figure because that run's interpreter did not answer: "run lab_check" would only repeat it.
  if (read.ok() && !read->train_tflops && read->interpreter_unresponsive) {
    const probes::Unresponsive& u = *read->interpreter_unresponsive;
    context.Fail(T(fmt::format("в {} нет измерения smoke.llama.train_tflops: {}. {} Или задайте --tflops",
                               path, u.Reason().ru, u.Hint().ru),
                   fmt::format("{} has no smoke.llama.train_tflops measurement: {}. {} Or give --tflops",
                               path, u.Reason().en, u.Hint().en)).In(context.lang()));
    return std::nullopt;
  }
  if (!read.ok() || !read->train_tflops) {
    context.Fail(T(fmt::format("в {} нет измерения smoke.llama.train_tflops: запустите lab_check или задайте --tflops", path),
                   fmt::format("{} has no smoke.llama.train_tflops measurement: run lab_check or give --tflops", path)).In(context.lang()));
    return std::nullopt;
  }
  return std::move(read).value();
}

CostInput CostInputFor(const CostOptions& o, double params, double tokens) {
  CostInput in;
  in.method = *ParseMethod(o.method);
  in.recompute = o.checkpointing;
  in.gpus = o.gpus;
  in.price_per_gpu_hour = o.price;
  in.params = params;
  in.tokens = tokens;
  return in;
}

void PrintCostJson(const std::optional<ModelInput>& model, const CostInput& in, const Throughput& throughput,
                   const TrainingCost& cost, const CommandContext& context) {
  nlohmann::json j = {{"command", "cost"}, {"cost", TrainingCostJson(cost, in, throughput, Lang::En)},
                      {"counting", MethodCounting(in.method, in.recompute).In(Lang::En)}};
  if (model) j["model"] = ModelJson(*model);
  PrintJson(j, context);
}

Table CostTable(const std::optional<ModelInput>& model, const CostInput& in, const Throughput& throughput,
                const TrainingCost& cost, Lang lang) {
  Table table;
  table.columns = {T("Что", "What"), T("Значение", "Value")};
  table.AddRow({T("N (параметры в умножениях матриц на токен)", "N (parameters in matmuls per token)"), FormatParams(in.params)});
  table.AddRow({T("D (токенов)", "D (tokens)"), fmt::format("{:.3g}", in.tokens)});
  table.AddRow({T("FLOPs", "FLOPs"), fmt::format("{:.3g}", cost.flops)});
  table.AddRow({T("Скорость на GPU", "Speed per GPU"),
                throughput.tflops_low == throughput.tflops_high ? fmt::format("{:.1f} TFLOPS", throughput.tflops_low)
                                                                : fmt::format("{:.1f}–{:.1f} TFLOPS", throughput.tflops_low, throughput.tflops_high)});
  auto range = [&](double low, double high, auto format) { return FormatRange(format(low), format(high)); };
  table.AddRow({fmt::format(fmt::runtime(T("Время на {} GPU", "Time on {} GPUs").In(lang)), in.gpus),
                range(cost.hours_low, cost.hours_high, [&](double h) { return FormatDuration(h, lang); })});
  table.AddRow({T("GPU-часов", "GPU-hours"), range(cost.gpu_hours_low, cost.gpu_hours_high, [](double h) { return fmt::format("{:.1f}", h); })});
  if (cost.money_low) {
    table.AddRow({T("Стоимость", "Cost"), range(*cost.money_low, *cost.money_high, [](double m) { return fmt::format("{:.2f}", m); })});
  }
  table.notes.push_back(MethodCounting(in.method, in.recompute));
  table.notes.push_back(Text(T("Скорость: ", "Speed: ").In(lang) + throughput.source.In(lang)));
  if (model && model->arch && model->arch->moe.enabled()) {
    table.notes.push_back(T("MoE: N — активные параметры (эксперты, выбранные для токена).", "MoE: N counts active parameters (the experts a token is routed to)."));
  }
  return table;
}

void Run(const CostOptions& o, const CommandContext& context) {
  std::optional<ModelInput> model;
  const std::optional<double> params = ParamsOrFail(o, model, context);
  if (!params) return;
  const auto tokens = TokenCountOrFail(o.tokens, T("1e9, 2B или 500M", "1e9, 2B or 500M"), context);
  if (!tokens) return;
  std::optional<MachineReport> report;
  if (o.from_report && !(report = MeasuredReportOrFail(context))) return;
  const CostInput in = CostInputFor(o, *params, static_cast<double>(*tokens));
  const Throughput throughput = ResolveThroughput(o.tflops, report ? &*report : nullptr, nullptr, CalcConstants::Builtin());
  const TrainingCost cost = ComputeTrainingCost(in, throughput);
  if (o.json) {
    PrintCostJson(model, in, throughput, cost, context);
  } else {
    if (model) PrintLine(ModelLine(*model, context.lang()), context);
    PrintTable(CostTable(model, in, throughput, cost, context.lang()), context);
  }
  context.Succeed();
}

}  // namespace

void AddCostCommand(CLI::App& app, const CommandContext& context) {
  auto options = std::make_shared<CostOptions>();
  CLI::App* sub = app.add_subcommand("cost", T("FLOPs обучения (6ND), время, GPU-часы и деньги", "Training FLOPs (6ND), time, GPU-hours and money").In(context.lang()));
  auto* model = sub->add_option("--model", options->model, T("имя из каталога, размер, путь к config.json или id репозитория HF из локального кэша", "catalog name, size, config.json path or cached HF repo id").In(context.lang()));
  auto* params = sub->add_option("--params", options->params, T("число параметров N (7B, 70e9)", "parameter count N (7B, 70e9)").In(context.lang()));
  model->excludes(params);
  sub->add_option("--tokens", options->tokens, T("токенов обучения D (1e9, 2B)", "training tokens D (1e9, 2B)").In(context.lang()))->required();
  sub->add_option("--method", options->method, "full | lora | qlora")->check(CLI::IsMember({"full", "lora", "qlora"}));
  sub->add_flag("--checkpointing", options->checkpointing, T("полный пересчёт активаций (ещё один прямой проход)", "full activation recomputation (one more forward)").In(context.lang()));
  auto* tflops = sub->add_option("--tflops", options->tflops, T("достигнутые TFLOPS на одну GPU", "achieved TFLOPS per GPU").In(context.lang()))->check(CLI::Range(0.001, 1e6));
  auto* from_report = sub->add_flag("--from-report", options->from_report, T("взять smoke.llama.train_tflops из последнего отчёта", "use smoke.llama.train_tflops from the last report").In(context.lang()));
  tflops->excludes(from_report);
  sub->add_option("--gpus", options->gpus, T("сколько GPU обучают вместе", "GPUs training together").In(context.lang()))->check(CLI::Range(1, 100000));
  sub->add_option("--price", options->price, T("цена одного GPU-часа", "price per GPU-hour").In(context.lang()))->check(CLI::Range(0.0, 1e9));
  sub->add_flag("--json", options->json, T("напечатать только JSON", "print JSON only").In(context.lang()));
  sub->callback([options, context] { Run(*options, context); });
}

}  // namespace labcheck::calc

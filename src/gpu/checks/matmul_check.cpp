// gpu.matmul: cuBLASLt TFLOPS per GPU and precision, the spot check, the clock event reasons
// NVML saw while it ran, and the spread between cards when all run at once.
#include <algorithm>

#include <fmt/format.h>

#include "gpu/bench/stats.h"
#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "reference/hints.h"

namespace labcheck::gpu {

namespace {

constexpr double kMatmulSpreadWarn = 0.10;  // cards of one model differ by a few percent; 10% is a finding

// The precisions the child measures, in the table's order: the child's key, the name in a
// measurement's title, the column.
struct Precision {
  const char* key;
  const char* name;
  Text column;
};
const std::vector<Precision>& Precisions() {
  // FP8 is measured with fast accumulation, as NVIDIA's and everyone's quoted FP8 peaks are: say so
  // where the figure is read.
  static const std::vector<Precision> precisions = {
      {"bf16", "BF16", "BF16"},
      {"fp16", "FP16", "FP16"},
      {"tf32", "TF32", "TF32"},
      {"fp8", "FP8", T("FP8 (быстрое накопление)", "FP8 (fast accumulation)")},
  };
  return precisions;
}

bool IsSlowdown(const std::string& reason) {
  return reason == "thermal" || reason == "hw_thermal" || reason == "hw_slowdown" || reason == "hw_power_brake";
}

// What the verdict and the summary read, gathered over every GPU's row.
struct MatmulTally {
  std::vector<std::string> wrong, errors, slowdowns;
  std::vector<double> bf16_alone, fp16_alone;
};

Table MatmulTable(const nlohmann::json& payload) {
  Table table{T("Умножение матриц (cuBLASLt), TFLOPS", "Matrix multiply (cuBLASLt), TFLOPS"),
              {"GPU"},
              {},
              {PayloadMethod(payload)}};
  for (const Precision& p : Precisions()) table.columns.push_back(p.column);
  table.columns.push_back(T("Проверка", "Check"));
  table.columns.push_back(T("Снижение частот", "Clock events"));
  return table;
}

// One precision's cell of GPU `i`, and its measurement when it has a figure; false in `checked`
// when the spot check found the product wrong.
Text PrecisionCell(int i, const Precision& p, const nlohmann::json& figure, CheckResult& result, MatmulTally& tally,
                   bool& checked) {
  if (figure.is_null() || figure.contains("skipped")) return Text("—");
  if (figure.contains("error")) {
    tally.errors.push_back(fmt::format("GPU{} {}: {}", i, p.key, figure["error"].get<std::string>()));
    return T("ошибка", "error");
  }
  const double tflops = figure.value("tflops", 0.0);
  if (std::string(p.key) == "bf16") tally.bf16_alone.push_back(tflops);
  if (std::string(p.key) == "fp16") tally.fp16_alone.push_back(tflops);
  const bool fast_accumulation = figure.value("fast_accumulation", false);
  result.Add({fmt::format("gpu{}.matmul_{}_tflops", i, p.key),
              T(fmt::format("GPU{}: матмул {}", i, p.name), fmt::format("GPU{}: matmul {}", i, p.name)), tflops, "TFLOPS",
              T(fmt::format("cuBLASLt {0}×{0}×{0} TN, накопление в FP32{2}, 2·M·N·K на вызов, после прогрева {3:.0f} мс, "
                            "медиана из {1}",
                            figure.value("size", 0), figure.value("repeats", 0),
                            fast_accumulation ? " (быстрое накопление)" : "",
                            figure.contains("warmup") ? figure["warmup"].value("device_ms", 0.0) : 0.0),
                fmt::format("cuBLASLt {0}×{0}×{0} TN, FP32 accumulate{2}, 2·M·N·K per call, after a {3:.0f} ms "
                            "warm-up, median of {1}",
                            figure.value("size", 0), figure.value("repeats", 0),
                            fast_accumulation ? " (fast accumulation)" : "",
                            figure.contains("warmup") ? figure["warmup"].value("device_ms", 0.0) : 0.0))});
  result.measurements.back().spread = TimingSpread(tflops, figure);
  if (!figure["check"].value("ok", false)) {
    checked = false;
    tally.wrong.push_back(fmt::format("GPU{} {}", i, p.key));
  }
  return Text(Figure(tflops));
}

// A GPU's row: a cell per precision, the spot check, the clock event reasons NVML saw.
void AddGpuRow(const nlohmann::json& gpu, CheckResult& result, Table& table, MatmulTally& tally) {
  const int i = gpu.value("index", 0);
  std::vector<Text> row = {Text(std::to_string(i))};
  bool checked = true;
  for (const Precision& p : Precisions())
    row.push_back(PrecisionCell(i, p, gpu["figures"].value(p.key, nlohmann::json()), result, tally, checked));
  row.push_back(checked ? Text("OK") : T("НЕВЕРНО", "WRONG"));
  std::vector<std::string> reasons = gpu.value("clock_event_reasons", std::vector<std::string>());
  std::string joined;
  for (const std::string& r : reasons) {
    joined += (joined.empty() ? "" : ", ") + r;
    if (IsSlowdown(r)) tally.slowdowns.push_back(fmt::format("GPU{}: {}", i, r));
  }
  row.push_back(Text(joined.empty() ? "—" : joined));
  table.AddRow(row);
  result.data["gpus"].push_back({{"index", i}, {"clock_event_reasons", reasons}, {"figures", gpu["figures"]}});
}

// Every GPU's BF16 TFLOPS when all ran at once; empty when the child measured them alone only.
std::vector<double> TogetherFigures(const nlohmann::json& payload, CheckResult& result) {
  std::vector<double> together;
  if (!payload.contains("concurrent")) return together;
  for (const nlohmann::json& g : payload["concurrent"]["gpus"])
    if (g.contains("tflops")) together.push_back(g["tflops"].get<double>());
  result.data["concurrent"] = payload["concurrent"];
  return together;
}

Text Summary(const MatmulTally& tally) {
  std::string best;
  if (!tally.bf16_alone.empty()) best = Figure(*std::max_element(tally.bf16_alone.begin(), tally.bf16_alone.end()));
  if (best.empty() && !tally.fp16_alone.empty()) {  // cards without BF16 (V100): their FP16 figure
    const std::string fp16 = Figure(*std::max_element(tally.fp16_alone.begin(), tally.fp16_alone.end()));
    return T(fmt::format("FP16 до {} TFLOPS (BF16 нет)", fp16), fmt::format("FP16 up to {} TFLOPS (no BF16)", fp16));
  }
  return T(fmt::format("BF16 до {} TFLOPS", best.empty() ? "—" : best),
           fmt::format("BF16 up to {} TFLOPS", best.empty() ? "—" : best));
}

// The first finding wins: a wrong product, then slowed clocks, then cards apart, then failed figures.
void PickVerdict(const MatmulTally& tally, double spread, CheckResult& result) {
  if (!tally.wrong.empty()) {
    result.outcome = Outcome::Fail;
    result.reason = T("результат умножения неверен: " + tally.wrong.front(), "the matrix product is wrong: " + tally.wrong.front());
    result.hint = T("карта считает с ошибками: проверьте охлаждение и разгон, обновите драйвер",
                    "the card computes wrong results: check cooling and overclocking, update the driver");
  } else if (!tally.slowdowns.empty()) {
    result.outcome = Outcome::Warn;
    result.reason = T("во время замера частоты снижались: " + tally.slowdowns.front(),
                      "clocks were reduced during the run: " + tally.slowdowns.front());
    result.hint = hint::Action(hint::kMatmulSlow);
  } else if (spread > kMatmulSpreadWarn) {
    result.outcome = Outcome::Warn;
    result.reason = T(fmt::format("карты различаются на {:.0f}% (BF16)", 100 * spread),
                      fmt::format("the cards differ by {:.0f}% (BF16)", 100 * spread));
    result.hint = hint::Action(hint::kMatmulSlow);
  } else if (!tally.errors.empty()) {
    result.outcome = Outcome::Warn;
    result.reason = T("часть замеров не удалась", "some measurements failed");
    result.error = tally.errors.front();
  }
}

CheckResult RunMatmulCheck(CheckContext& context) {
  GpuJobReply reply = RunGpuJobFor(context, kMatmulCheck, "cuBLASLt 8192³");
  if (reply.ending) return *reply.ending;
  const nlohmann::json& j = reply.payload;

  CheckResult result;
  result.outcome = Outcome::Pass;
  Table table = MatmulTable(j);
  MatmulTally tally;
  result.data["gpus"] = nlohmann::json::array();
  for (const nlohmann::json& gpu : j["gpus"]) AddGpuRow(gpu, result, table, tally);
  table.notes.push_back(T("power_cap — карта держит лимит мощности (под полной нагрузкой это обычно); thermal, "
                          "hw_slowdown — перегрев или аппаратное снижение частот.",
                          "power_cap — the card holds its power limit (usual under full load); thermal, hw_slowdown — "
                          "overheating or a hardware clock slowdown."));

  const std::vector<double> together = TogetherFigures(j, result);
  const double spread_alone = SpreadFraction(tally.bf16_alone), spread_together = SpreadFraction(together);
  result.data["spread_bf16"] = {{"alone", spread_alone}, {"together", spread_together}};
  if (!together.empty()) {
    double sum = 0;
    for (double t : together) sum += t;
    table.notes.push_back(T(fmt::format("BF16, все GPU сразу: {} TFLOPS в сумме", Figure(sum)),
                            fmt::format("BF16, all GPUs at once: {} TFLOPS in total", Figure(sum))));
  }
  result.tables.push_back(table);
  result.summary = Summary(tally);
  PickVerdict(tally, std::max(spread_alone, spread_together), result);
  return result;
}

}  // namespace

const GpuCheckSpec kMatmulCheck = {
    .id = "gpu.matmul",
    .section = "gpu",
    .title = T("Умножение матриц (cuBLASLt)", "Matrix multiply (cuBLASLt)"),
    .quick = QuickMode::Shortened,
    .budget_s = 300,
    .job = kMatmulJob,
    .job_fn = MatmulJob,
    .run = RunMatmulCheck,
    .reads = {&kInventoryCheck},
};

}  // namespace labcheck::gpu

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

constexpr double kSpreadWarn = 0.10;  // cards of one model differ by a few percent; 10% is a finding

bool IsSlowdown(const std::string& reason) {
  return reason == "thermal" || reason == "hw_thermal" || reason == "hw_slowdown" || reason == "hw_power_brake";
}

CheckResult RunMatmulCheck(CheckContext& context) {
  GpuJobReply reply = RunGpuJobFor(context, kMatmulCheck, "cuBLASLt 8192³");
  if (reply.ending) return *reply.ending;
  const nlohmann::json& j = reply.payload;

  CheckResult result;
  result.outcome = Outcome::Pass;
  const std::vector<std::string> precisions = {"bf16", "fp16", "tf32", "fp8"};
  // FP8 is measured with fast accumulation, as NVIDIA's and everyone's quoted FP8 peaks are: say so
  // where the figure is read.
  Table table{T("Умножение матриц (cuBLASLt), TFLOPS", "Matrix multiply (cuBLASLt), TFLOPS"),
              {"GPU", "BF16", "FP16", "TF32", T("FP8 (быстрое накопление)", "FP8 (fast accumulation)"),
               T("Проверка", "Check"), T("Снижение частот", "Clock events")},
              {},
              {Text(j.value("method", std::string()))}};
  std::vector<std::string> wrong, errors, slowdowns;
  result.data["gpus"] = nlohmann::json::array();
  std::vector<double> bf16_alone, fp16_alone;
  for (const nlohmann::json& gpu : j["gpus"]) {
    const int i = gpu.value("index", 0);
    std::vector<Text> row = {Text(std::to_string(i))};
    bool all_ok = true;
    for (const std::string& p : precisions) {
      const nlohmann::json figure = gpu["figures"].value(p, nlohmann::json());
      if (figure.is_null() || figure.contains("skipped")) {
        row.push_back(Text("—"));
        continue;
      }
      if (figure.contains("error")) {
        row.push_back(T("ошибка", "error"));
        errors.push_back(fmt::format("GPU{} {}: {}", i, p, figure["error"].get<std::string>()));
        continue;
      }
      const double tflops = figure.value("tflops", 0.0);
      if (p == "bf16") bf16_alone.push_back(tflops);
      if (p == "fp16") fp16_alone.push_back(tflops);
      std::string upper = p;
      std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
      const bool fast_accumulation = figure.value("fast_accumulation", false);
      result.Add({fmt::format("gpu{}.matmul_{}_tflops", i, p), T(fmt::format("GPU{}: матмул {}", i, upper), fmt::format("GPU{}: matmul {}", i, upper)),
                  tflops, "TFLOPS",
                  Text(fmt::format("cuBLASLt {0}×{0}×{0} TN, FP32 accumulate{2}, 2·M·N·K per call, after a {3:.0f} ms "
                                   "warm-up, median of {1}",
                                   figure.value("size", 0), figure.value("repeats", 0),
                                   fast_accumulation ? " (fast accumulation)" : "",
                                   figure.contains("warmup") ? figure["warmup"].value("device_ms", 0.0) : 0.0))});
      result.measurements.back().spread = TimingSpread(tflops, figure);
      row.push_back(Text(Figure(tflops)));
      if (!figure["check"].value("ok", false)) {
        all_ok = false;
        wrong.push_back(fmt::format("GPU{} {}", i, p));
      }
    }
    row.push_back(all_ok ? Text("OK") : T("НЕВЕРНО", "WRONG"));
    std::vector<std::string> reasons = gpu.value("clock_event_reasons", std::vector<std::string>());
    std::string joined;
    for (const std::string& r : reasons) {
      joined += (joined.empty() ? "" : ", ") + r;
      if (IsSlowdown(r)) slowdowns.push_back(fmt::format("GPU{}: {}", i, r));
    }
    row.push_back(Text(joined.empty() ? "—" : joined));
    table.AddRow(row);
    result.data["gpus"].push_back({{"index", i}, {"clock_event_reasons", reasons}, {"figures", gpu["figures"]}});
  }
  table.notes.push_back(T("power_cap — карта держит лимит мощности (под полной нагрузкой это обычно); thermal, "
                          "hw_slowdown — перегрев или аппаратное снижение частот.",
                          "power_cap — the card holds its power limit (usual under full load); thermal, hw_slowdown — "
                          "overheating or a hardware clock slowdown."));
  result.tables.push_back(table);

  std::vector<double> together;
  if (j.contains("concurrent")) {
    for (const nlohmann::json& g : j["concurrent"]["gpus"])
      if (g.contains("tflops")) together.push_back(g["tflops"].get<double>());
    result.data["concurrent"] = j["concurrent"];
  }
  const double spread_alone = SpreadFraction(bf16_alone), spread_together = SpreadFraction(together);
  result.data["spread_bf16"] = {{"alone", spread_alone}, {"together", spread_together}};
  if (!together.empty()) {
    double sum = 0;
    for (double t : together) sum += t;
    table.notes.push_back(Text(fmt::format("BF16, all GPUs at once: {} TFLOPS in total", Figure(sum))));
    result.tables.back().notes = table.notes;
  }

  std::string best;
  if (!bf16_alone.empty()) best = Figure(*std::max_element(bf16_alone.begin(), bf16_alone.end()));
  if (best.empty() && !fp16_alone.empty()) {  // cards without BF16 (V100): their FP16 figure
    const std::string fp16 = Figure(*std::max_element(fp16_alone.begin(), fp16_alone.end()));
    result.summary = T(fmt::format("FP16 до {} TFLOPS (BF16 нет)", fp16), fmt::format("FP16 up to {} TFLOPS (no BF16)", fp16));
  } else {
    result.summary = T(fmt::format("BF16 до {} TFLOPS", best.empty() ? "—" : best),
                       fmt::format("BF16 up to {} TFLOPS", best.empty() ? "—" : best));
  }
  if (!wrong.empty()) {
    result.outcome = Outcome::Fail;
    result.reason = T("результат умножения неверен: " + wrong.front(), "the matrix product is wrong: " + wrong.front());
    result.hint = T("карта считает с ошибками: проверьте охлаждение и разгон, обновите драйвер",
                    "the card computes wrong results: check cooling and overclocking, update the driver");
  } else if (!slowdowns.empty()) {
    result.outcome = Outcome::Warn;
    result.reason = T("во время замера частоты снижались: " + slowdowns.front(), "clocks were reduced during the run: " + slowdowns.front());
    result.hint = hint::Action(hint::kMatmulSlow);
  } else if (std::max(spread_alone, spread_together) > kSpreadWarn) {
    result.outcome = Outcome::Warn;
    result.reason = T(fmt::format("карты различаются на {:.0f}% (BF16)", 100 * std::max(spread_alone, spread_together)),
                      fmt::format("the cards differ by {:.0f}% (BF16)", 100 * std::max(spread_alone, spread_together)));
    result.hint = hint::Action(hint::kMatmulSlow);
  } else if (!errors.empty()) {
    result.outcome = Outcome::Warn;
    result.reason = T("часть замеров не удалась", "some measurements failed");
    result.error = errors.front();
  }
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

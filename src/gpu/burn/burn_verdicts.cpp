#include "gpu/burn/burn_verdicts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/gpu_label.h"
#include "gpu/bench/clock_event_hold.h"

namespace labcheck::gpu::burn {

namespace {

using nlohmann::json;

std::optional<double> Number(const json& sample, const char* key) {
  auto it = sample.find(key);
  if (it == sample.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<double> MeanTflops(const std::vector<json>& samples, double from_s, double to_s) {
  double sum = 0;
  int n = 0;
  for (const json& s : samples) {
    const double t = s.value("t_s", 0.0);
    if (t <= from_s || t > to_s + 1e-9) continue;
    if (auto v = Number(s, "tflops")) {
      sum += *v;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

// The family of a reason, as the verdict names it.
std::string Family(const std::string& reason) {
  if (reason == "thermal" || reason == "hw_thermal") return "thermal";
  if (reason == "power_cap") return "power_cap";
  if (reason == "hw_slowdown" || reason == "hw_power_brake") return "hw_slowdown";
  return "";
}

Text CauseText(const std::string& cause) {
  if (cause == "thermal") return T("перегрев (thermal)", "overheating (thermal)");
  if (cause == "power_cap") return T("лимит мощности (power cap)", "the power limit (power cap)");
  if (cause == "hw_slowdown") return T("аппаратное снижение частот (HW slowdown: питание, перегрев)",
                                       "a hardware slowdown (HW slowdown: power delivery, overheating)");
  return T("причину NVML не назвал", "NVML reported no reason");
}

std::string Figure(std::optional<double> v, const char* format = "{:.1f}") {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("—");
}

struct Finding {
  Outcome status;
  Text reason, hint;
};

bool Dropped(const GpuVerdict& v) { return v.drop && *v.drop > kDropWarn; }

std::optional<Finding> WrongResults(const GpuVerdict& v) {
  if (v.wrong == 0) return std::nullopt;
  return Finding{Outcome::Fail,
                 T(fmt::format("GPU{} считает неверно под нагрузкой ({} из {} проверок)", v.index, v.wrong, v.checks),
                   fmt::format("GPU{} computes wrong results under load ({} of {} checks)", v.index, v.wrong, v.checks)),
                 T("карта ошибается при нагреве: проверьте охлаждение и разгон (сбросьте его), обновите драйвер; "
                   "на такой карте обучение портится без ошибок",
                   "the card errs when hot: check cooling and overclocking (reset it), update the driver; training "
                   "on it breaks silently")};
}

std::optional<Finding> LoadStopped(const GpuVerdict& v, const GpuTimeline& g) {
  if (g.error.empty()) return std::nullopt;
  return Finding{Outcome::Fail,
                 T(fmt::format("GPU{}: нагрузка прервалась: {}", v.index, g.error),
                   fmt::format("GPU{}: the load stopped: {}", v.index, g.error)),
                 T("смотрите журнал ядра: sudo dmesg | grep NVRM", "see the kernel log: sudo dmesg | grep NVRM")};
}

std::optional<Finding> SlowerAtTheEnd(const GpuVerdict& v) {
  if (!Dropped(v)) return std::nullopt;
  Text hint = T("nvidia-smi -q -d PERFORMANCE покажет причину снижения частот",
                "nvidia-smi -q -d PERFORMANCE shows why the clocks drop");
  if (v.suggested_power_limit_w)
    hint = T(fmt::format("карта перегревается: улучшите обдув или ограничьте мощность: sudo nvidia-smi -i {} -pl {} "
                         "(≈85% того, что она брала на полной скорости; потеря скорости обычно небольшая, а нагрев и шум "
                         "заметно падают)", NvidiaSmiId(v.pci_bus_id), *v.suggested_power_limit_w),
             fmt::format("the card overheats: improve the airflow or cap its power: sudo nvidia-smi -i {} -pl {} (≈85% of "
                         "what it drew at full speed; the speed loss is usually small, heat and noise drop noticeably)",
                         NvidiaSmiId(v.pci_bus_id), *v.suggested_power_limit_w));
  else if (v.cause == "power_cap")
    hint = T("карта держит лимит мощности: nvidia-smi -q -d POWER покажет лимит; проверьте, не занижен ли он",
             "the card holds its power limit: nvidia-smi -q -d POWER shows it; check it is not set below the default");
  return Finding{Outcome::Warn,
                 T(fmt::format("GPU{}: к концу на {:.0f}% медленнее, чем в начале: {}", v.index, 100 * *v.drop, CauseText(v.cause).ru),
                   fmt::format("GPU{}: {:.0f}% slower at the end than at the start: {}", v.index, 100 * *v.drop, CauseText(v.cause).en)),
                 hint};
}

std::optional<Finding> SlowerThanTheBest(const GpuVerdict& v, const GpuTimeline& g, double best_mean) {
  if (!(best_mean > 0 && v.first_tflops && *v.first_tflops < best_mean * (1 - kSlowerWarn))) return std::nullopt;
  const std::string name = g.name.empty() ? "" : " (" + g.name + ")";
  return Finding{Outcome::Warn,
                 T(fmt::format("GPU{}{} на {:.0f}% медленнее лучшей карты", v.index, name, 100 * (1 - *v.first_tflops / best_mean)),
                   fmt::format("GPU{}{} is {:.0f}% slower than the best card", v.index, name, 100 * (1 - *v.first_tflops / best_mean))),
                 T("сравните лимиты мощности и температуры карт (nvidia-smi -q -d POWER,TEMPERATURE) и слоты PCIe",
                   "compare the cards' power limits and temperatures (nvidia-smi -q -d POWER,TEMPERATURE) and PCIe slots")};
}

// A hot card that kept its speed: the -pl line as a tip, no finding.
std::optional<Finding> PowerLimitTip(const GpuVerdict& v) {
  if (!v.suggested_power_limit_w || Dropped(v)) return std::nullopt;
  return Finding{Outcome::Pass, Text(),
                 T(fmt::format("если карта шумит или греется: sudo nvidia-smi -i {} -pl {}", NvidiaSmiId(v.pci_bus_id), *v.suggested_power_limit_w),
                   fmt::format("if the card is loud or hot: sudo nvidia-smi -i {} -pl {}", NvidiaSmiId(v.pci_bus_id), *v.suggested_power_limit_w))};
}

Table BurnTable(double duration) {
  return Table{T("Нагрузочный тест: BF16 cuBLASLt на всех картах сразу", "Burn test: BF16 cuBLASLt on all cards at once"),
               {"GPU", T("Начало, TFLOPS", "Start, TFLOPS"), T("Конец, TFLOPS", "End, TFLOPS"), T("Изменение", "Change"),
                T("Макс. °C", "Max °C"), T("Макс. Вт", "Max W"), T("Причина", "Cause"), T("Проверка", "Check")},
               {},
               {T(fmt::format("Начало и конец — средние за первые и последние {:.0f} с работы GPU (время по событиям CUDA).",
                              ComparisonWindow(duration)),
                  fmt::format("Start and end are means over the first and last {:.0f} s of GPU time (CUDA event time).",
                              ComparisonWindow(duration)))}};
}

std::vector<Text> TableRow(const GpuVerdict& v, const GpuTimeline& g) {
  const std::string change = v.drop ? fmt::format("{:+.0f}%", -100 * *v.drop) : "—";
  return {Text(fmt::format("{}{}", v.index, g.name.empty() ? "" : " " + g.name)), Text(Figure(v.first_tflops)),
          Text(Figure(v.last_tflops)), Text(change), Text(Figure(v.max_temperature_c, "{:.0f}")),
          Text(Figure(v.max_power_w, "{:.0f}")), Dropped(v) ? CauseText(v.cause) : Text("—"),
          v.checks == 0 ? Text("—") : (v.wrong > 0 ? T("НЕВЕРНО", "WRONG") : Text("OK"))};
}

json VerdictJson(const GpuVerdict& v, const GpuTimeline& g) {
  return {{"index", v.index}, {"first_tflops", v.first_tflops ? json(*v.first_tflops) : json()},
          {"last_tflops", v.last_tflops ? json(*v.last_tflops) : json()},
          {"mean_tflops", v.mean_tflops ? json(*v.mean_tflops) : json()},
          {"window_s", v.window_s}, {"drop", v.drop ? json(*v.drop) : json()}, {"cause", v.cause},
          {"checks", v.checks}, {"wrong", v.wrong},
          {"suggested_power_limit_w", v.suggested_power_limit_w ? json(*v.suggested_power_limit_w) : json()},
          {"xids", g.xids}, {"error", g.error}};
}

// The worst status; every finding of it named (one card hot, another slow: both lines matter).
// With none, the last tip stands alone as the hint.
void ApplyFindings(const std::vector<Finding>& findings, CheckResult& result) {
  auto append = [](Text& into, const Text& more, const char* separator) {
    if (more.empty()) return;
    into = into.empty() ? more : Text(into.ru + separator + more.ru, into.en + separator + more.en);
  };
  for (Outcome want : {Outcome::Fail, Outcome::Warn}) {
    for (const Finding& f : findings) {
      if (f.status != want) continue;
      result.outcome = f.status;
      append(result.reason, f.reason, "; ");
      append(result.hint, f.hint, " ");
    }
    if (result.outcome != Outcome::Pass) break;
  }
  if (result.outcome == Outcome::Pass)
    for (const Finding& f : findings)
      if (!f.hint.empty()) result.hint = f.hint;
}

}  // namespace

double ComparisonWindow(double duration_s) { return duration_s >= 180 ? 60 : duration_s / 3; }

GpuVerdict JudgeGpu(const GpuTimeline& gpu) {
  GpuVerdict v;
  v.index = gpu.index;
  v.pci_bus_id = gpu.pci_bus_id;
  double duration = 0;
  for (const json& s : gpu.samples) duration = std::max(duration, s.value("t_s", 0.0));
  v.window_s = ComparisonWindow(duration);
  v.first_tflops = MeanTflops(gpu.samples, 0, v.window_s);
  v.last_tflops = MeanTflops(gpu.samples, duration - v.window_s, duration);
  v.mean_tflops = MeanTflops(gpu.samples, 0, duration);
  if (v.first_tflops && v.last_tflops && *v.first_tflops > 0) v.drop = 1 - *v.last_tflops / *v.first_tflops;

  // The cause: the reason family seen most often in the last window, among those that held there
  // (bench/clock_event_hold.h): a P-state change can set hw_slowdown for one sample.
  std::map<std::string, int> families;
  int window_samples = 0;
  for (const json& s : gpu.samples) {
    if (s.value("t_s", 0.0) <= duration - v.window_s) continue;
    const json& reasons = s.contains("clock_event_reasons") ? s["clock_event_reasons"] : json();
    if (!reasons.is_array()) continue;
    ++window_samples;
    std::set<std::string> seen;  // "thermal" and "hw_thermal" in one sample are one thermal sample
    for (const json& r : reasons)
      if (r.is_string() && !Family(r.get<std::string>()).empty()) seen.insert(Family(r.get<std::string>()));
    for (const std::string& family : seen) ++families[family];
  }
  int best = 0;
  for (const auto& [family, count] : families) {
    if (!ReasonHolds(count, window_samples)) continue;
    if (count > best || (count == best && family == "thermal")) {  // heat first: it is what -pl fixes
      best = count;
      v.cause = family;
    }
  }

  // Power drawn while the card still ran at full speed (no thermal reason): the basis for -pl.
  std::vector<double> cool_power;
  for (const json& s : gpu.samples) {
    if (auto t = Number(s, "temperature_c")) v.max_temperature_c = std::max(v.max_temperature_c.value_or(*t), *t);
    auto p = Number(s, "power_w");
    if (!p) continue;
    v.max_power_w = std::max(v.max_power_w.value_or(*p), *p);
    bool hot = false;
    if (s.contains("clock_event_reasons") && s["clock_event_reasons"].is_array())
      for (const json& r : s["clock_event_reasons"])
        hot = hot || (r.is_string() && Family(r.get<std::string>()) == "thermal");
    if (!hot) cool_power.push_back(*p);
  }
  if (v.cause == "thermal") {
    std::vector<double>& basis = cool_power;
    if (!basis.empty()) {
      std::sort(basis.begin(), basis.end());
      const double median = basis[basis.size() / 2];
      v.suggested_power_limit_w = static_cast<int>(std::lround(median * kPowerCapSuggest / 5) * 5);
    } else if (v.max_power_w) {
      v.suggested_power_limit_w = static_cast<int>(std::lround(*v.max_power_w * kPowerCapSuggest / 5) * 5);
    }
  }
  for (const SpotResult& c : gpu.checks) {
    ++v.checks;
    if (!c.ok) ++v.wrong;
  }
  return v;
}

CheckResult JudgeBurn(const Timeline& timeline, bool interrupted) {
  CheckResult result;
  result.id = "gpu.burn";
  result.section = "gpu";
  result.title = T("Нагрузочный тест GPU", "GPU burn test");
  result.outcome = Outcome::Pass;

  std::vector<GpuVerdict> verdicts;
  double best_mean = 0;
  double duration = 0;
  for (const GpuTimeline& g : timeline.gpus) {
    verdicts.push_back(JudgeGpu(g));
    // Cards are compared on their first window: what each does before heat sets in (a card that
    // throttles later has its own finding).
    best_mean = std::max(best_mean, verdicts.back().first_tflops.value_or(0));
    for (const json& s : g.samples) duration = std::max(duration, s.value("t_s", 0.0));
  }

  Table table = BurnTable(duration);
  std::vector<Finding> findings;
  json verdicts_json = json::array();
  for (size_t i = 0; i < verdicts.size(); ++i) {
    const GpuVerdict& v = verdicts[i];
    const GpuTimeline& g = timeline.gpus[i];
    table.AddRow(TableRow(v, g));
    verdicts_json.push_back(VerdictJson(v, g));
    for (std::optional<Finding> f : {WrongResults(v), LoadStopped(v, g), SlowerAtTheEnd(v), SlowerThanTheBest(v, g, best_mean),
                                     PowerLimitTip(v)})
      if (f) findings.push_back(*f);
  }
  result.tables.push_back(table);

  json gpus = json::array();
  for (const GpuTimeline& g : timeline.gpus)
    gpus.push_back({{"index", g.index}, {"name", g.name.empty() ? json() : json(g.name)}, {"samples", g.samples}});
  result.data = {{"interval_s", timeline.interval_s}, {"gpus", gpus}, {"verdicts", verdicts_json},
                 {"duration_s", duration}, {"interrupted", interrupted || !timeline.complete}};

  double total = 0;
  for (const GpuVerdict& v : verdicts) total += v.last_tflops.value_or(0);
  result.Add({"gpu.burn_total_tflops", T("Нагрузочный тест: всего TFLOPS в конце", "Burn test: total TFLOPS at the end"), total,
              "TFLOPS", T("сумма по картам средних BF16 TFLOPS за последнее окно", "sum over cards of the mean BF16 TFLOPS in the last window")});
  result.summary = T(fmt::format("{} GPU, {:.0f} с, в конце {:.0f} TFLOPS всего", verdicts.size(), duration, total),
                     fmt::format("{} GPU(s), {:.0f} s, {:.0f} TFLOPS in total at the end", verdicts.size(), duration, total));

  ApplyFindings(findings, result);
  if (timeline.gpus.empty() || duration == 0) {
    result.outcome = interrupted ? Outcome::NotRun : Outcome::Fail;
    result.reason = T("ни одного замера", "not a single sample");
  }
  return result;
}

}  // namespace labcheck::gpu::burn

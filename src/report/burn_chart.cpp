// The burn timeline (`lab_check burn`, check gpu.burn): TFLOPS, SM clock, temperature and power
// against time, one line per GPU. Contract: data.gpus[].samples[] = {t_s, tflops, sm_clock_mhz,
// mem_clock_mhz, power_w, temperature_c, fan_percent, clock_event_reasons}; any field may be null.
#include "report/line_chart.h"
#include "report/report_charts.h"

namespace labcheck {

void AddBurnCharts(const Report& report, std::vector<ReportChart>& charts) {
  const CheckResult* check = report.FindCheck("gpu.burn");
  if (check == nullptr || !check->data.is_object() || !check->data.contains("gpus") || !check->data["gpus"].is_array()) return;
  const bool ru = report.lang == Lang::Ru;
  struct Quantity {
    const char* field;
    const char* id;
    std::string title, unit;
  };
  const std::vector<Quantity> quantities = {
      {"tflops", "burn-tflops", ru ? "Прогрев: TFLOPS" : "Burn: TFLOPS", "TFLOPS"},
      {"sm_clock_mhz", "burn-sm-clock", ru ? "Прогрев: частота SM" : "Burn: SM clock", ru ? "МГц" : "MHz"},
      {"temperature_c", "burn-temperature", ru ? "Прогрев: температура" : "Burn: temperature", "°C"},
      {"power_w", "burn-power", ru ? "Прогрев: мощность" : "Burn: power", ru ? "Вт" : "W"}};
  for (const Quantity& q : quantities) {
    LineChart chart;
    chart.title = q.title;
    chart.x_title = ru ? "время, с" : "time, s";
    chart.y_title = q.unit;
    chart.height = 260;
    bool any = false;
    for (const nlohmann::json& gpu : check->data["gpus"]) {
      if (!gpu.is_object() || !gpu.contains("samples") || !gpu["samples"].is_array()) continue;
      LineSeries s;
      const nlohmann::json index = gpu.value("index", nlohmann::json());
      s.name = "GPU " + (index.is_number_integer() ? std::to_string(index.get<int>()) : std::string("?"));
      for (const nlohmann::json& sample : gpu["samples"]) {
        if (!sample.is_object() || !sample.contains("t_s") || !sample["t_s"].is_number()) continue;
        const nlohmann::json v = sample.value(q.field, nlohmann::json());
        s.points.emplace_back(sample["t_s"].get<double>(), v.is_number() ? std::optional(v.get<double>()) : std::nullopt);
        any = any || v.is_number();
      }
      chart.series.push_back(std::move(s));
    }
    if (any) charts.push_back({q.id, check->section.empty() ? "gpu" : check->section, chart.title, RenderLineChart(chart)});
  }
}

}  // namespace labcheck

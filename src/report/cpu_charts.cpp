// The CPU figures against their theoretical peaks: one chart per unit (GB/s for the STREAM kernels,
// GFLOPS for SGEMM), each bar with its repetitions' min–max and the peak as a mark.
#include <map>

#include "report/report_charts.h"

namespace labcheck {

void AddCpuCharts(const Report& report, std::vector<ReportChart>& charts) {
  const bool ru = report.lang == Lang::Ru;
  std::vector<std::string> units;
  std::map<std::string, BarChart> by_unit;
  for (const CheckResult& c : report.checks) {
    if (c.section != "cpu") continue;
    for (const Measurement& m : c.measurements) {
      if (!m.spread && !m.reference) continue;  // a count, not a benchmark
      auto [it, inserted] = by_unit.try_emplace(m.unit);
      if (inserted) units.push_back(m.unit);
      Bar bar = MeasurementBar(m.label.In(report.lang), m);
      bar.reference = m.reference;
      it->second.bars.push_back(std::move(bar));
    }
  }
  for (const std::string& unit : units) {
    BarChart& chart = by_unit[unit];
    chart.title = ru ? "Процессор против теоретического предела, " + unit : "CPU against its theoretical peak, " + unit;
    chart.unit = unit;
    SetBarLegend(chart, report.lang);
    charts.push_back({"cpu-" + unit, "cpu", chart.title, RenderBarChart(chart)});
  }
}

}  // namespace labcheck

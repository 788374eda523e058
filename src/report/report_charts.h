// The report's charts, built from the Report model (check data, measurements and the expectations
// section's rows), in the report's language. The HTML writer inlines them; the same charts are
// written as journal/lab-report-<id>.svg files that the Markdown report links.
// Which charts exist: docs/html-report.md.
#pragma once
#include <string>
#include <vector>

#include "report/bar_chart.h"
#include "report/report.h"
#include "report/svg_canvas.h"

namespace labcheck {

struct ReportChart {
  std::string id;       // file-name part: "busbw", "expected-matmul_bf16", "burn-power"
  std::string section;  // where the chart goes: "expectations" or a check section ("cpu", "gpu", …)
  std::string title;    // in the report's language
  Svg svg;
};

// Every chart the report has data for, in report order; ids are unique and file-name safe.
std::vector<ReportChart> BuildReportCharts(const Report& report);

// The parts, one file each.
void AddExpectationCharts(const Report& report, std::vector<ReportChart>& charts);  // measured vs expected
void AddPerGpuCharts(const Report& report, std::vector<ReportChart>& charts);       // the other GPU figures
void AddBusbwChart(const Report& report, std::vector<ReportChart>& charts);         // all-reduce busbw
void AddBurnCharts(const Report& report, std::vector<ReportChart>& charts);         // gpu.burn timeline
void AddMemtestCharts(const Report& report, std::vector<ReportChart>& charts);      // gpu.memtest wrong bits
void AddCpuCharts(const Report& report, std::vector<ReportChart>& charts);          // CPU vs theoretical

// Shared by the parts: a bar for a measurement (its value and min–max whisker).
Bar MeasurementBar(const std::string& label, const Measurement& m);
// Legend words of bar charts, in `lang`.
void SetBarLegend(BarChart& chart, Lang lang);

}  // namespace labcheck

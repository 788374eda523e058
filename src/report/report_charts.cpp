#include "report/report_charts.h"

#include <cctype>
#include <set>

#include "report/bar_chart.h"
#include "core/spread.h"
#include "report/format.h"

namespace labcheck {
namespace {

std::string SafeId(const std::string& id) {
  std::string out;
  for (char c : id) {
    const unsigned char u = static_cast<unsigned char>(c);
    out += std::isalnum(u) || c == '-' || c == '_' ? static_cast<char>(std::tolower(u)) : '-';
  }
  return out.empty() ? "chart" : out;
}

}  // namespace

Bar MeasurementBar(const std::string& label, const Measurement& m) {
  Bar bar;
  bar.label = label;
  bar.value = m.value;
  bar.value_text = FormatMeasurement(m);
  if (m.spread) {
    bar.min = m.spread->min;
    bar.max = m.spread->max;
    // The whisker shows the spread; the word is added where it warns ("noisy"), not for "stable".
    if (const Trust trust = TrustOf(*m.spread); trust != Trust::Stable) bar.trust = TrustWord(trust);
  }
  return bar;
}

void SetBarLegend(BarChart& chart, Lang lang) {
  const bool ru = lang == Lang::Ru;
  chart.lang = lang;
  chart.measured_label = ru ? "измерено (медиана)" : "measured (median)";
  chart.spread_label = ru ? "мин–макс повторов" : "min–max of repeats";
  chart.band_label = ru ? "ожидалось" : "expected";
  chart.reference_label = ru ? "теоретический предел" : "theoretical peak";
}

std::vector<ReportChart> BuildReportCharts(const Report& report) {
  std::vector<ReportChart> charts;
  using Part = void (*)(const Report&, std::vector<ReportChart>&);
  for (Part part : {AddExpectationCharts, AddCpuCharts, AddPerGpuCharts, AddBurnCharts, AddMemtestCharts, AddBusbwChart}) {
    // Check data comes from other modules and old reports; a part that meets a shape it does not
    // expect (a string where a number was) leaves its charts out, the report is still written.
    std::vector<ReportChart> some;
    try {
      part(report, some);
    } catch (const nlohmann::json::exception&) {
      some.clear();
    }
    for (ReportChart& c : some) charts.push_back(std::move(c));
  }
  std::set<std::string> seen;
  for (ReportChart& c : charts) {
    std::string id = SafeId(c.id);
    for (int n = 2; !seen.insert(id).second; ++n) id = SafeId(c.id) + "-" + std::to_string(n);
    c.id = id;
  }
  return charts;
}

}  // namespace labcheck

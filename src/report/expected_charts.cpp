// Measured against expected, one chart per GPU figure of «Ожидалось в курсе → у вас» (a bar per
// card, so the spread between cards shows too), and per-GPU bars for the GPU figures that table
// does not cover (FP16/TF32 matmul, pageable copies…).
#include <map>
#include <optional>
#include <set>

#include "core/measurement_key.h"
#include "core/regex_instances.h"  // <regex>, its code generated once
#include "report/format.h"
#include "report/report_charts.h"

namespace labcheck {
namespace {

using nlohmann::json;

std::string LangString(const json& j, Lang lang) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object()) {
    const char* key = lang == Lang::Ru ? "ru" : "en";
    if (j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
  }
  return "";
}

// The course's rule (docs/expectations.md): 2× off the nearest edge of the band either way.
bool OffTwice(double value, double low, double high) {
  if (value < low) return low > 0 && value / low <= 0.5;
  if (value > high) return high > 0 && value / high >= 2;
  return false;
}

bool IsFigureKey(const std::string& key) {
  return key.size() > 7 && key.compare(key.size() - 7, 7, ".access") != 0 && key.compare(key.size() - 3, 3, "_ok") != 0;
}

}  // namespace

void AddExpectationCharts(const Report& report, std::vector<ReportChart>& charts) {
  const ReportSection* section = report.FindSection("expectations");
  if (section == nullptr || !section->data.contains("rows") || !section->data["rows"].is_array()) return;
  const Lang lang = report.lang;
  const bool ru = lang == Lang::Ru;
  for (const json& row : section->data["rows"]) {
    if (!row.is_object()) continue;
    const json readings = row.value("readings", json::array());
    bool figures = false;
    for (const json& r : readings) figures = figures || IsFigureKey(r.value("key", std::string()));
    const bool failure = row.value("off_2x", json()).is_string() && row["off_2x"] == "failure";
    // A row without a figure already says why in the table; an empty chart would only repeat it,
    // except for a failure (all-reduce hung), which is the one thing the reader must not miss.
    if (!figures && !failure) continue;
    if (!readings.empty() && !figures) continue;  // P2P access yes/no: not a bar

    const std::string label = LangString(row.value("label", json()), lang);
    BarChart chart;
    chart.title = (ru ? "Ожидалось → у вас: " : "Expected → measured: ") + label;
    SetBarLegend(chart, lang);
    std::optional<double> low, high;
    if (row.contains("band") && row["band"].is_array() && row["band"].size() == 2 && row["band"][0].is_number()) {
      low = row["band"][0].get<double>();
      high = row["band"][1].get<double>();
    }
    for (const json& r : readings) {
      const std::string key = r.value("key", std::string());
      const double value = r.value("value", 0.0);
      std::string where = r.value("where", std::string());
      if (where.empty()) where = label;
      const Measurement* m = report.FindMeasurement(key);
      Bar bar;
      if (m != nullptr) {
        bar = MeasurementBar(where, *m);
        if (chart.unit.empty()) chart.unit = m->unit;
      } else {
        bar.label = where;
        bar.value = value;
        bar.value_text = FormatNumber(value);
      }
      bar.band_low = low;
      bar.band_high = high;
      if (low && high) {
        bar.flagged = OffTwice(value, *low, *high);
        // The ratio to the nearest edge, as the table's «Отношение»; inside the band it is 1 and says nothing.
        const double edge = value < *low ? *low : value > *high ? *high : value;
        if (edge > 0 && edge != value) bar.value_text += " · ×" + FormatNumber(value / edge);
      }
      chart.bars.push_back(std::move(bar));
    }
    if (chart.bars.empty()) {
      Bar bar;
      bar.label = label;
      bar.band_low = low;
      bar.band_high = high;
      bar.missing = LangString(row.value("measured", json()), lang);
      if (row.contains("failure")) bar.missing = LangString(row["failure"], lang);
      chart.bars.push_back(std::move(bar));
    }
    std::string id = "expected-" + row.value("id", std::string("row"));
    const std::string model = row.value("gpu_model", std::string());
    if (!model.empty() && row.value("id", std::string()).rfind("matmul", 0) == 0) id += "-" + model;
    charts.push_back({id, "expectations", chart.title, RenderBarChart(chart)});
  }
}

void AddPerGpuCharts(const Report& report, std::vector<ReportChart>& charts) {
  // Keys the expectations charts already draw per card.
  std::set<std::string> drawn;
  if (const ReportSection* s = report.FindSection("expectations"); s != nullptr && s->data.contains("rows")) {
    for (const json& row : s->data["rows"]) {
      for (const json& r : row.value("readings", json::array())) drawn.insert(r.value("key", std::string()));
    }
  }
  static const std::regex kGpuPrefix(R"(^GPU ?\d+: ?)");
  std::vector<std::string> order;  // figure kinds in report order
  std::map<std::string, std::vector<std::pair<int, const Measurement*>>> kinds;
  for (const CheckResult& c : report.checks) {
    for (const Measurement& m : c.measurements) {
      const std::optional<measurement_key::GpuFigure> key = measurement_key::Parse(m.key);
      if (!key || drawn.count(m.key) || key->figure == "memory_total_gib") continue;
      auto [it, inserted] = kinds.try_emplace(key->figure);
      if (inserted) order.push_back(key->figure);
      it->second.emplace_back(key->gpu, &m);
    }
  }
  const Lang lang = report.lang;
  for (const std::string& kind : order) {
    const auto& list = kinds[kind];
    if (list.size() < 2) continue;  // one card: nothing to compare across
    BarChart chart;
    const std::string what = std::regex_replace(list.front().second->label.In(lang), kGpuPrefix, "");
    chart.title = (lang == Lang::Ru ? "По картам: " : "Per GPU: ") + what;
    chart.unit = list.front().second->unit;
    SetBarLegend(chart, lang);
    for (const auto& [index, m] : list) {
      Bar bar = MeasurementBar("GPU " + std::to_string(index), *m);
      bar.reference = m->reference;
      chart.bars.push_back(std::move(bar));
    }
    charts.push_back({"gpus-" + kind, "gpu", chart.title, RenderBarChart(chart)});
  }
}

}  // namespace labcheck

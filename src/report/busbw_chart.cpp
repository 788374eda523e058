// All-reduce bus bandwidth against message size (log₂ x): a line for the first attempt and one for
// the NCCL_P2P_DISABLE=1 retry when it ran, the lessons' expected figure, and the link ceiling
// (the PCIe limit of the slowest card's link, from the host↔device copy check's reference).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/format.h"
#include "report/line_chart.h"
#include "report/report_charts.h"

namespace labcheck {
namespace {

using nlohmann::json;

LineSeries SweepSeries(const json& attempt, const std::string& name) {
  LineSeries s;
  s.name = name;
  if (!attempt.is_object() || !attempt.contains("sizes") || !attempt["sizes"].is_array()) return s;
  for (const json& size : attempt["sizes"]) {
    if (!size.is_object() || !size.contains("bytes") || !size["bytes"].is_number()) continue;
    const json busbw = size.value("busbw_gbps", json());
    s.points.emplace_back(size["bytes"].get<double>(), busbw.is_number() ? std::optional(busbw.get<double>()) : std::nullopt);
  }
  return s;
}

// "(завис)", "(ошибка NCCL)": why an attempt has no line.
std::string FailureWord(const json& attempt, bool ru) {
  auto flag = [&](const char* key) {
    if (!attempt.contains(key)) return false;
    const json& v = attempt[key];
    return (v.is_boolean() && v.get<bool>()) || (v.is_string() && !v.get<std::string>().empty());
  };
  if (flag("hung")) return ru ? " — завис" : " — hung";
  if (flag("crashed")) return ru ? " — упал" : " — crashed";
  if (flag("nccl_error")) return ru ? " — ошибка NCCL" : " — NCCL error";
  if (flag("wrong_sum")) return ru ? " — неверная сумма" : " — wrong sum";
  return "";
}

}  // namespace

void AddBusbwChart(const Report& report, std::vector<ReportChart>& charts) {
  const CheckResult* check = report.FindCheck("interconnect.allreduce");
  // One GPU has no busbw. 0 ranks means no attempt got far enough to say: still drawn when one
  // failed, so that "hung" is in the chart and not only in the table.
  if (check == nullptr || !check->data.is_object() || check->data.value("ranks", 0) == 1) return;
  const bool ru = report.lang == Lang::Ru;
  const json& data = check->data;
  LineChart chart;
  chart.title = ru ? "All-reduce: busbw от размера сообщения" : "All-reduce: busbw by message size";
  chart.x_title = ru ? "размер сообщения (логарифмическая шкала)" : "message size (log scale)";
  chart.y_title = "busbw, GB/s";
  chart.log2_x = true;
  chart.x_tick = BytesTick;
  const bool user_disabled = data.value("p2p_disabled", false);
  chart.series.push_back(SweepSeries(data, (user_disabled ? "NCCL_P2P_DISABLE=1" : (ru ? "без NCCL_P2P_DISABLE" : "without NCCL_P2P_DISABLE")) +
                                               FailureWord(data, ru)));
  const json retry = data.value("p2p_disable_retry", json());
  if (retry.is_object()) {
    LineSeries s = SweepSeries(retry, (ru ? "NCCL_P2P_DISABLE=1 (повтор)" : "NCCL_P2P_DISABLE=1 (retry)") + FailureWord(retry, ru));
    s.dashed = true;
    chart.series.push_back(std::move(s));
  }
  const json comparison = data.value("p2p_disabled_comparison", json());
  if (comparison.is_object()) {
    LineSeries s = SweepSeries(comparison, (ru ? "NCCL_P2P_DISABLE=1 (для сравнения)" : "NCCL_P2P_DISABLE=1 (for comparison)") +
                                               FailureWord(comparison, ru));
    s.dashed = true;
    chart.series.push_back(std::move(s));
  }
  bool any_point = false;
  for (const LineSeries& s : chart.series) {
    for (const auto& p : s.points) any_point = any_point || p.second.has_value();
  }
  if (!any_point && chart.series.size() == 1 && FailureWord(data, ru).empty()) return;

  if (const ReportSection* s = report.FindSection("expectations"); s != nullptr && s->data.contains("rows")) {
    for (const json& row : s->data["rows"]) {
      if (row.value("id", std::string()) != "allreduce" || !row.contains("band") || !row["band"].is_array() ||
          row["band"].size() != 2 || !row["band"][0].is_number()) {
        continue;
      }
      const double low = row["band"][0].get<double>(), high = row["band"][1].get<double>();
      const std::string what = ru ? "ожидалось в курсе" : "expected by the course";
      if (high > low) {
        chart.band = HorizontalBand{low, high, fmt::format("{} {}–{} GB/s", what, FormatNumber(low), FormatNumber(high))};
      } else {
        chart.lines.push_back({low, fmt::format("{}: W = {} GB/s", what, FormatNumber(low)), "#2e7d32", true});
      }
    }
  }
  // The ceiling: busbw cannot beat one direction of the slowest card's link.
  double ceiling = std::numeric_limits<double>::infinity();
  std::string link;
  for (const CheckResult& c : report.checks) {
    for (const Measurement& m : c.measurements) {
      if (m.key.find(".h2d_pinned_gbps") == std::string::npos || !m.reference || *m.reference >= ceiling) continue;
      ceiling = *m.reference;
      link = m.reference_label.In(report.lang);
    }
  }
  if (std::isfinite(ceiling)) {
    chart.lines.push_back({ceiling, fmt::format("{}{}: {} GB/s", ru ? "предел канала " : "link ceiling ", link, FormatNumber(ceiling))});
  }
  charts.push_back({"busbw", "interconnect", chart.title, RenderLineChart(chart)});
}

}  // namespace labcheck

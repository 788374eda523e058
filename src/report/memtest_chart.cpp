// The memory test's wrong bits (check gpu.memtest): each recorded word that read back wrong, by
// its offset into the tested memory and each wrong bit's position, one colour per GPU. A bad chip
// shows as a row of dots on the same bits across the offsets (a stride); a dead address line as a
// few dots at powers of two. Contract: data.cards[] = {index, patterns: [{errors: {records:
// [{offset_gib, bits: [..]}]}]}; the chart is drawn only when some record exists.
#include <algorithm>

#include "report/chart_axes.h"
#include "report/format.h"
#include "report/report_charts.h"

namespace labcheck {

namespace {

struct Dot {
  double offset_gib = 0;
  int bit = 0;
};

// Every (offset, bit) a card's records show.
std::vector<Dot> CardDots(const nlohmann::json& card) {
  std::vector<Dot> dots;
  if (!card.is_object() || !card.contains("patterns") || !card["patterns"].is_array()) return dots;
  for (const nlohmann::json& p : card["patterns"]) {
    const nlohmann::json records = p.is_object() ? p.value("errors", nlohmann::json::object()).value("records", nlohmann::json()) : nlohmann::json();
    if (!records.is_array()) continue;
    for (const nlohmann::json& r : records) {
      if (!r.is_object() || !r.contains("offset_gib") || !r["offset_gib"].is_number() || !r.contains("bits") || !r["bits"].is_array()) continue;
      for (const nlohmann::json& bit : r["bits"])
        if (bit.is_number_integer()) dots.push_back({r["offset_gib"].get<double>(), bit.get<int>()});
    }
  }
  return dots;
}

}  // namespace

void AddMemtestCharts(const Report& report, std::vector<ReportChart>& charts) {
  const CheckResult* check = report.FindCheck("gpu.memtest");
  if (check == nullptr || !check->data.is_object() || !check->data.contains("cards") || !check->data["cards"].is_array()) return;
  const bool ru = report.lang == Lang::Ru;
  std::vector<std::pair<std::string, std::vector<Dot>>> cards;
  double most_gib = 1;
  for (const nlohmann::json& card : check->data["cards"]) {
    std::vector<Dot> dots = CardDots(card);
    if (dots.empty()) continue;
    for (const Dot& d : dots) most_gib = std::max(most_gib, d.offset_gib);
    const nlohmann::json index = card.value("index", nlohmann::json());
    cards.push_back({"GPU " + (index.is_number_integer() ? std::to_string(index.get<int>()) : std::string("?")), std::move(dots)});
  }
  if (cards.empty()) return;
  const std::string title = ru ? "Тест памяти: неверные биты по смещению" : "Memory test: wrong bits by offset";
  Svg svg(720, 340, title);
  svg.Text(16, 22, title, Svg::Anchor::Start, 15, "#111", true);
  double x_legend = 16;
  for (size_t i = 0; i < cards.size(); ++i) {
    svg.Circle(x_legend + 5, 39, 4, SeriesColor(i));
    svg.Text(x_legend + 14, 43, cards[i].first, Svg::Anchor::Start, 11, "#333");
    x_legend += 70;
  }
  const PlotArea plot{64, 66, 720 - 64 - 24, 340 - 66 - 48};
  const double x_max = NiceMax(most_gib * 1.02);
  const Scale x{0, x_max, plot.left, plot.right()}, y{0, 64, plot.bottom(), plot.top};
  DrawYAxis(svg, y, plot, {0, 8, 16, 24, 32, 40, 48, 56, 64}, [](double v) { return std::to_string(static_cast<int>(v)); },
            ru ? "бит в 8-байтовом слове" : "bit in the 8-byte word");
  DrawXAxis(svg, x, plot, NiceTicks(0, x_max, 8), [](double v) { return FormatNumber(v); }, ru ? "смещение, ГиБ" : "offset, GiB");
  for (size_t i = 0; i < cards.size(); ++i)
    for (const Dot& d : cards[i].second) svg.Circle(x(d.offset_gib), y(d.bit + 0.5), 3, SeriesColor(i));
  charts.push_back({"memtest-errors", check->section.empty() ? "gpu" : check->section, title, std::move(svg)});
}

}  // namespace labcheck

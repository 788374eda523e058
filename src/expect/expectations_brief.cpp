// The terminal's short form of «Ожидалось в курсе → у вас» (ReportSection::brief_*): the rows that
// were measured, with their reference, figure, ratio and flag; what explains a low row; the rows
// left without a figure in one line (without a GPU: that the GPU rows need one); the course's
// hints that apply. The full table, its notes and sources stay in the report files.
#include <algorithm>

#include "expect/sections.h"

namespace labcheck::expect {
namespace {

bool Measured(const ExpectationRow& row) { return !row.readings.empty() || row.failure.has_value() || row.answered; }

// «Матмул BF16, TFLOPS · Память, ГБ/с — SKIP: нет драйвера NVIDIA; Llama… — не запускался (--quick)»:
// the rows without a figure, grouped by why.
Text UnmeasuredLine(const std::vector<ExpectationRow>& rows) {
  std::vector<std::pair<Text, std::vector<const ExpectationRow*>>> groups;
  for (const ExpectationRow& row : rows) {
    if (Measured(row)) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first.en == row.measured.en; });
    if (it == groups.end()) it = groups.insert(groups.end(), {row.measured, {}});
    it->second.push_back(&row);
  }
  Text out;
  for (const auto& [why, members] : groups) {
    Text labels;
    for (const ExpectationRow* r : members) {
      labels.ru += (labels.ru.empty() ? "" : " · ") + r->label.ru;
      labels.en += (labels.en.empty() ? "" : " · ") + r->label.en;
    }
    out.ru += (out.ru.empty() ? "" : "; ") + labels.ru + " — " + why.ru;
    out.en += (out.en.empty() ? "" : "; ") + labels.en + " — " + why.en;
  }
  return out;
}

}  // namespace

void AddBriefExpectations(const Analysis& a, ReportSection& s) {
  Table table;
  table.columns = {T("Строка отчёта", "Report row"), T("Ориентир", "Reference"), T("У вас", "Measured"),
                   T("Отношение", "Ratio"), T("> 2×", "> 2×")};
  for (const ExpectationRow& row : a.rows) {
    if (!Measured(row)) continue;
    table.AddRow({row.label, row.reference, row.measured, row.RatioCell(), row.FlagCell()});
    if (!row.note.empty() && row.worst && row.worst->ratio < 1)
      s.brief_lines.push_back(T(row.label.ru + ": " + row.note.ru, row.label.en + ": " + row.note.en));
  }
  if (!table.rows.empty()) s.brief_tables.push_back(std::move(table));
  const Text unmeasured = UnmeasuredLine(a.rows);
  if (a.facts.gpus.empty() && !a.facts.run.cards.AnyGpu() && s.brief_tables.empty()) {
    // Why the first row has no figure is why they all have none: the driver's SKIP, as a rule.
    const Text why = a.rows.empty() ? Text("—") : a.rows.front().measured;
    s.brief_lines.push_back(T("Строкам про GPU нужна видеокарта, здесь её нет (" + why.ru + "). Ориентиры курса — в отчёте.",
                              "The GPU rows need a GPU, and there is none here (" + why.en +
                                  "). The course's reference figures are in the report."));
  } else if (!unmeasured.empty()) {
    s.brief_lines.push_back(T("Без замера: " + unmeasured.ru, "Not measured: " + unmeasured.en));
  }
  for (const TriggeredHint& h : a.hints)
    s.brief_lines.push_back(T("Подсказка курса — " + h.detail.ru + ": " + hint::Action(h.id).ru,
                              "The course's hint: " + h.detail.en + ": " + hint::Action(h.id).en));
}

void AddBriefRecommendations(const Analysis& a, ReportSection& s) {
  s.brief_lines.push_back(T("Время обучения: " + CoefficientLine(a.training).ru,
                            "Training time: " + CoefficientLine(a.training).en));
  s.brief_lines.push_back(T("Время обмена между картами: " + CoefficientLine(a.communication).ru,
                            "Communication time: " + CoefficientLine(a.communication).en));
}

}  // namespace labcheck::expect

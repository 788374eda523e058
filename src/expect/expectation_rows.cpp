#include "expect/expectation_rows.h"

#include <algorithm>

#include <fmt/format.h>

#include "expect/report_facts.h"
#include "facts/statements.h"

namespace labcheck::expect {

Text ExpectationRow::FlagCell() const {
  if (failure) return T("да: " + failure->ru, "yes: " + failure->en);
  if (!worst) return Text("—");
  Text flag = FlagText(*worst);
  if (worst->flagged() && readings.size() > 1 && !worst_where.empty()) {
    flag.ru += " (" + worst_where + ")";
    flag.en += " (" + worst_where + ")";
  }
  return flag;
}

Text ExpectationRow::RatioCell() const {
  if (!worst) return Text("—");
  return Text(fmt::format("{:.2f}", worst->ratio));
}

void FinishRow(ExpectationRow& row, const CourseReference& course, const Text& missing) {
  if (row.readings.empty()) {
    if (row.measured.empty()) row.measured = missing.empty() ? Text("—") : missing;
    return;
  }
  double low = row.readings.front().value, high = low;
  for (const Reading& r : row.readings) {
    low = std::min(low, r.value);
    high = std::max(high, r.value);
    const std::optional<reference::Band> band = r.band ? r.band : row.band;
    if (!band) continue;
    const Judgement j = Judge(r.value, *band, course.normal_within, course.flag_factor);
    if (!row.worst || Severity(j) > Severity(*row.worst)) {
      row.worst = j;
      row.worst_where = r.where;
    }
  }
  if (row.measured.empty()) {
    if (row.readings.size() == 1 || low == high) {
      row.measured = Text(Num(low));
    } else if (Num(low) == Num(high)) {
      // Cards that differ only past the shown digits read as one figure, not "75–75".
      row.measured = Text(fmt::format("{} ({})", Num(low), row.readings.size()));
    } else {
      // The range shows a card that stands out; the flag names it.
      row.measured = Text(fmt::format("{}–{} ({})", Num(low), Num(high), row.readings.size()));
    }
  }
}

Text MissingBecause(const Report& report, const ReportFacts& facts, const std::string& check_id) {
  const CheckResult* check = FindCheck(report, check_id);
  if (check == nullptr) return facts::NotInReport(facts.run.flags);
  const std::string outcome = OutcomeName(check->outcome);
  // It ran and has no such figure: --quick measures less (matmul: one precision per card).
  if (check->outcome == Outcome::Pass && facts.quick) return facts::ShortenedByQuick();
  if (check->outcome == Outcome::Warn && !check->reason.empty())
    return T(outcome + ": " + check->reason.ru, outcome + ": " + check->reason.en);
  if (check->outcome == Outcome::Pass || check->outcome == Outcome::Warn) {
    return T(outcome + ", но без этого замера", outcome + ", without this figure");
  }
  if (check->reason.empty()) return Text(outcome);
  return T(outcome + ": " + check->reason.ru, outcome + ": " + check->reason.en);
}

std::string RowCheckId(const std::string& row_id) {
  if (row_id.rfind("matmul_", 0) == 0) return "gpu.matmul";
  if (row_id == "memory_copy") return "gpu.memory_bandwidth";
  if (row_id == "h2d" || row_id == "d2h") return "gpu.host_device_copy";
  if (row_id == "p2p" || row_id == "gpu_to_gpu") return "gpu.p2p";
  if (row_id == "allreduce") return "interconnect.allreduce";
  if (row_id == "llama_train") return "smoke.llama_train";
  return "";
}

std::vector<ExpectationRow> BuildRows(const Report& report, const ReportFacts& facts,
                                      const CourseReference& course, const reference::GpuCatalog& catalog) {
  std::vector<ExpectationRow> rows;
  AddGpuRows(report, facts, course, catalog, rows);
  AddMachineRows(report, facts, course, catalog, rows);
  // Under --only the rows whose checks were not chosen say nothing about this run: left out.
  if (!report.meta.only.empty())
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const ExpectationRow& r) { return FindCheck(report, RowCheckId(r.id)) == nullptr; }),
               rows.end());
  return rows;
}

}  // namespace labcheck::expect

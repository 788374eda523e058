#include "report/report_layout.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/format.h"

namespace labcheck {

const std::vector<std::string>& SectionOrder() {
  static const std::vector<std::string> order = {"environment", "cpu", "gpu", "interconnect", "smoke"};
  return order;
}

bool IsLeadingSection(const std::string& section_id) { return section_id == "expectations"; }

Table StatusTable(const Report& report) {
  Table t;
  t.title = T("Итог проверок", "Checks");
  t.columns = {T("Проверка", "Check"), T("Статус", "Status"), T("Время", "Time"), T("Результат", "Result")};
  for (const auto& c : report.checks) {
    Text result = c.summary;
    if (result.empty()) result = c.reason;
    t.AddRow({c.title, Text(OutcomeLabel(c.outcome, Lang::Ru), OutcomeLabel(c.outcome, Lang::En)),
              Text(fmt::format("{:.1f} s", c.duration_s), fmt::format("{:.1f} s", c.duration_s)), result});
  }
  return t;
}

Table BriefStatusTable(const Report& report) {
  Table t;
  t.title = T("Итог проверок", "Checks");
  t.columns = {T("Проверка", "Check"), T("Статус", "Status"), T("Результат", "Result")};
  const auto& checks = report.checks;
  for (size_t i = 0; i < checks.size();) {
    const CheckResult& c = checks[i];
    const Text result = c.summary.empty() ? c.reason : c.summary;
    size_t run = 1;  // checks from i on with the same outcome and result, when skipped
    while (c.outcome == Outcome::Skip && i + run < checks.size() && checks[i + run].outcome == Outcome::Skip &&
           checks[i + run].summary.empty() && checks[i + run].reason.en == c.reason.en && c.summary.empty())
      ++run;
    Text title = c.title;
    if (run > 1) title = T(fmt::format("{} и ещё {}", c.title.ru, run - 1), fmt::format("{} and {} more", c.title.en, run - 1));
    t.AddRow({title, Text(OutcomeLabel(c.outcome, Lang::Ru), OutcomeLabel(c.outcome, Lang::En)), result});
    i += run;
  }
  return t;
}

Table MeasurementTable(const CheckResult& check) {
  Table t;
  if (check.measurements.empty()) return t;
  t.columns = {T("Показатель", "Figure"), T("Значение", "Value"), T("Ориентир", "Reference"),
               T("Как считали", "How counted"), T("Разброс", "Spread")};
  for (const auto& m : check.measurements) {
    Text reference("—");
    if (m.reference) {
      const std::string value = FormatNumber(*m.reference) + (m.unit.empty() ? "" : " " + m.unit);
      const std::string ratio = *m.reference > 0 ? fmt::format(" ({:.0f}%)", 100 * m.value / *m.reference) : "";
      reference = Text(value + ratio + (m.reference_label.ru.empty() ? "" : ", " + m.reference_label.ru),
                       value + ratio + (m.reference_label.en.empty() ? "" : ", " + m.reference_label.en));
    }
    t.AddRow({m.label.empty() ? Text(m.key) : m.label, FormatValueWithTrust(m), reference, m.method, FormatSpread(m)});
  }
  return t;
}

std::string ToolVersionLine(const std::string& version, const std::string& commit) {
  return commit.empty() ? version : version + " (commit " + commit + ")";
}

std::string ToolVersionLine(const RunMeta& meta) { return ToolVersionLine(meta.tool_version, meta.tool_commit); }

std::string ModeLine(const Report& report) {
  const bool ru = report.lang == Lang::Ru;
  std::string line = report.meta.quick ? "--quick" : (ru ? "полная проверка" : "full check");
  if (report.meta.skip_dist) line += ", --skip-dist";
  for (size_t i = 0; i < report.meta.only.size(); ++i) line += (i == 0 ? ", --only " : ",") + report.meta.only[i];
  return line;
}

std::string CountsLine(const Report& report) {
  std::string line;
  for (Outcome o : {Outcome::Pass, Outcome::Warn, Outcome::Fail, Outcome::Skip, Outcome::NotRun}) {
    const auto n = std::count_if(report.checks.begin(), report.checks.end(),
                                 [o](const CheckResult& c) { return c.outcome == o; });
    if (n == 0 && o == Outcome::NotRun) continue;
    if (!line.empty()) line += " · ";
    line += fmt::format("{} {}", OutcomeLabel(o, report.lang), n);
  }
  return line;
}

}  // namespace labcheck

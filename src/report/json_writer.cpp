#include "report/json_writer.h"

#include <map>

namespace labcheck {
namespace {

nlohmann::json TextList(const std::vector<Text>& texts, Lang lang) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : texts) out.push_back(t.In(lang));
  return out;
}

nlohmann::json MeasurementToJson(const Measurement& m, Lang lang) {
  nlohmann::json j = {{"key", m.key},     {"label", m.label.In(lang)}, {"value", m.value},
                      {"unit", m.unit},   {"method", m.method.In(lang)}};
  if (m.reference) j["reference"] = {{"value", *m.reference}, {"label", m.reference_label.In(lang)}};
  if (m.spread) {
    const Spread& s = *m.spread;
    const Trust trust = TrustOf(s);
    j["spread"] = {{"repeats", s.repeats}, {"median", s.median}, {"min", s.min}, {"max", s.max},
                   {"cv", s.cv ? nlohmann::json(*s.cv) : nlohmann::json(nullptr)},
                   {"machine_busy", s.machine_busy}, {"trust", TrustId(trust)},
                   {"trust_label", TrustWord(trust).In(lang)}};
  }
  return j;
}

nlohmann::json CheckToJson(const CheckResult& c, Lang lang) {
  nlohmann::json j = {{"id", c.id},
                      {"section", c.section},
                      {"title", c.title.In(lang)},
                      {"status", OutcomeName(c.outcome)},
                      {"duration_s", c.duration_s},
                      {"summary", c.summary.In(lang)},
                      {"reason", c.reason.In(lang)},
                      {"hint", c.hint.In(lang)},
                      {"error", c.error}};
  j["measurements"] = nlohmann::json::array();
  for (const auto& m : c.measurements) j["measurements"].push_back(MeasurementToJson(m, lang));
  j["tables"] = nlohmann::json::array();
  for (const auto& t : c.tables) j["tables"].push_back(TableToJson(t, lang));
  j["data"] = c.data;
  return j;
}

}  // namespace

nlohmann::json TableToJson(const Table& table, Lang lang) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : table.rows) rows.push_back(TextList(row, lang));
  return {{"title", table.title.In(lang)},
          {"columns", TextList(table.columns, lang)},
          {"rows", rows},
          {"notes", TextList(table.notes, lang)}};
}

nlohmann::json ReportToJson(const Report& report) {
  const Lang lang = report.lang;
  nlohmann::json j;
  j["schema_version"] = report.schema_version;
  j["tool"] = {{"name", "lab_check"}, {"version", report.meta.tool_version}};
  if (!report.meta.tool_commit.empty()) j["tool"]["commit"] = report.meta.tool_commit;
  j["lang"] = lang == Lang::Ru ? "ru" : "en";
  j["meta"] = {{"started_at", report.meta.started_at}, {"finished_at", report.meta.finished_at},
               {"duration_s", report.meta.duration_s}, {"quick", report.meta.quick},
               {"skip_dist", report.meta.skip_dist},   {"python", report.meta.python},
               {"interrupted", report.meta.interrupted}};
  if (!report.meta.only.empty()) j["meta"]["only"] = report.meta.only;
  std::map<std::string, int> counts;
  for (Outcome o : {Outcome::Pass, Outcome::Warn, Outcome::Fail, Outcome::Skip, Outcome::NotRun}) counts[OutcomeName(o)] = 0;
  for (const auto& c : report.checks) counts[OutcomeName(c.outcome)]++;
  j["summary"] = counts;
  j["checks"] = nlohmann::json::array();
  for (const auto& c : report.checks) j["checks"].push_back(CheckToJson(c, lang));
  j["sections"] = nlohmann::json::array();
  for (const auto& s : report.sections) {
    nlohmann::json tables = nlohmann::json::array();
    for (const auto& t : s.tables) tables.push_back(TableToJson(t, lang));
    j["sections"].push_back({{"id", s.id}, {"title", s.title.In(lang)},
                             {"paragraphs", TextList(s.paragraphs, lang)}, {"tables", tables},
                             {"data", s.data}});
  }
  return j;
}

}  // namespace labcheck

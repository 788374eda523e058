#include "report/json_reader.h"

namespace labcheck {
namespace {

using nlohmann::json;

// A string, or a {"ru", "en"} object as some sections store labels.
Text TextOf(const json& j) {
  if (j.is_string()) return Text(j.get<std::string>());
  if (j.is_object()) {
    auto part = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
    return Text(part("ru"), part("en"));
  }
  return Text();
}

Text Field(const json& object, const char* key) { return object.contains(key) ? TextOf(object[key]) : Text(); }

std::string Str(const json& object, const char* key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : std::string();
}

bool Bool(const json& object, const char* key) {
  return object.contains(key) && object[key].is_boolean() && object[key].get<bool>();
}

double Number(const json& object, const char* key, double fallback = 0) {
  return object.contains(key) && object[key].is_number() ? object[key].get<double>() : fallback;
}

std::vector<Text> TextList(const json& object, const char* key) {
  std::vector<Text> out;
  if (!object.contains(key) || !object[key].is_array()) return out;
  for (const json& item : object[key]) out.push_back(TextOf(item));
  return out;
}

Table TableOf(const json& j) {
  Table t;
  if (!j.is_object()) return t;
  t.title = Field(j, "title");
  t.columns = TextList(j, "columns");
  if (j.contains("rows") && j["rows"].is_array()) {
    for (const json& row : j["rows"]) {
      std::vector<Text> cells;
      if (row.is_array()) {
        for (const json& cell : row) cells.push_back(TextOf(cell));
      }
      t.rows.push_back(std::move(cells));
    }
  }
  t.notes = TextList(j, "notes");
  return t;
}

std::vector<Table> Tables(const json& object) {
  std::vector<Table> out;
  if (!object.contains("tables") || !object["tables"].is_array()) return out;
  for (const json& t : object["tables"]) out.push_back(TableOf(t));
  return out;
}

Measurement MeasurementOf(const json& j) {
  Measurement m;
  m.key = Str(j, "key");
  m.label = Field(j, "label");
  m.value = Number(j, "value");
  m.unit = Str(j, "unit");
  m.method = Field(j, "method");
  if (j.contains("reference") && j["reference"].is_object() && j["reference"].contains("value") &&
      j["reference"]["value"].is_number()) {
    m.reference = j["reference"]["value"].get<double>();
    m.reference_label = Field(j["reference"], "label");
  }
  if (j.contains("spread") && j["spread"].is_object()) {
    const json& s = j["spread"];
    Spread spread;
    spread.repeats = static_cast<int>(Number(s, "repeats"));
    spread.median = Number(s, "median", m.value);
    spread.min = Number(s, "min", m.value);
    spread.max = Number(s, "max", m.value);
    if (s.contains("cv") && s["cv"].is_number()) spread.cv = s["cv"].get<double>();
    spread.machine_busy = Bool(s, "machine_busy");
    m.spread = spread;
  }
  return m;
}

CheckResult CheckOf(const json& j) {
  CheckResult c;
  c.id = Str(j, "id");
  c.section = Str(j, "section");
  c.title = Field(j, "title");
  c.outcome = OutcomeFromName(Str(j, "status")).value_or(Outcome::NotRun);
  c.summary = Field(j, "summary");
  c.reason = Field(j, "reason");
  c.hint = Field(j, "hint");
  c.error = Str(j, "error");
  c.duration_s = Number(j, "duration_s");
  if (j.contains("measurements") && j["measurements"].is_array()) {
    for (const json& m : j["measurements"]) {
      if (m.is_object() && m.contains("key") && m["key"].is_string()) c.measurements.push_back(MeasurementOf(m));
    }
  }
  c.tables = Tables(j);
  if (j.contains("data") && j["data"].is_object()) c.data = j["data"];
  return c;
}

}  // namespace

Report ReportFromJson(const json& j) {
  Report r;
  if (!j.is_object()) return r;
  if (j.contains("schema_version") && j["schema_version"].is_number_integer()) r.schema_version = j["schema_version"].get<int>();
  r.lang = Str(j, "lang") == "en" ? Lang::En : Lang::Ru;
  if (j.contains("tool") && j["tool"].is_object()) {
    r.meta.tool_version = Str(j["tool"], "version");
    r.meta.tool_commit = Str(j["tool"], "commit");
  }
  if (j.contains("meta") && j["meta"].is_object()) {
    const json& m = j["meta"];
    r.meta.started_at = Str(m, "started_at");
    r.meta.finished_at = Str(m, "finished_at");
    r.meta.duration_s = Number(m, "duration_s");
    r.meta.quick = Bool(m, "quick");
    r.meta.skip_dist = Bool(m, "skip_dist");
    r.meta.python = Str(m, "python");
    r.meta.interrupted = Bool(m, "interrupted");
    if (m.contains("only") && m["only"].is_array())
      for (const json& p : m["only"])
        if (p.is_string()) r.meta.only.push_back(p.get<std::string>());
  }
  if (j.contains("checks") && j["checks"].is_array()) {
    for (const json& c : j["checks"]) {
      if (c.is_object()) r.checks.push_back(CheckOf(c));
    }
  }
  if (j.contains("sections") && j["sections"].is_array()) {
    for (const json& s : j["sections"]) {
      if (!s.is_object()) continue;
      ReportSection section;
      section.id = Str(s, "id");
      section.title = Field(s, "title");
      section.paragraphs = TextList(s, "paragraphs");
      section.tables = Tables(s);
      if (s.contains("data") && s["data"].is_object()) section.data = s["data"];
      r.sections.push_back(std::move(section));
    }
  }
  return r;
}

}  // namespace labcheck

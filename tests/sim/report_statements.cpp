#include "report_statements.h"

namespace labcheck::sim {
namespace {

using nlohmann::json;

std::string Lang(const SimRun& run) { return run.report.value("lang", std::string("ru")); }

// A text as the JSON keeps it: a plain string (checks, tables), or {"ru", "en"} (section data).
std::string Said(const json& value, const std::string& lang) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains(lang) && value[lang].is_string()) return value[lang].get<std::string>();
  return "";
}

void Add(std::vector<Statement>& out, const std::string& where, const std::string& text) {
  if (!text.empty()) out.push_back({where, text});
}

void AddTables(std::vector<Statement>& out, const std::string& where, const json& tables) {
  if (!tables.is_array()) return;
  for (const json& t : tables) {
    for (const json& row : t.value("rows", json::array()))
      for (const json& cell : row) Add(out, where + " table", cell.is_string() ? cell.get<std::string>() : "");
    for (const json& note : t.value("notes", json::array())) Add(out, where + " note", note.is_string() ? note.get<std::string>() : "");
  }
}

void AddSectionData(std::vector<Statement>& out, const std::string& id, const json& data, const std::string& lang) {
  for (const json& row : data.value("rows", json::array())) {
    const std::string where = "expectations row " + row.value("id", std::string());
    for (const char* key : {"reference", "measured", "note", "failure"}) Add(out, where + " " + key, Said(row.value(key, json()), lang));
  }
  for (const json& hint : data.value("hints", json::array()))
    Add(out, "course hint " + hint.value("id", std::string()) + " detail", Said(hint.value("detail", json()), lang));
  for (const char* factor : {"training_time_factor", "communication_time_factor"})
    if (data.contains(factor)) {
      Add(out, id + " " + factor + " missing", Said(data[factor].value("missing_reason", json()), lang));
      Add(out, id + " " + factor + " limited", Said(data[factor].value("limited_by", json()), lang));
    }
  Add(out, id + " summary", Said(data.value("summary", json()), lang));
}

}  // namespace

std::vector<Statement> Statements(const SimRun& run) {
  std::vector<Statement> out;
  const std::string lang = Lang(run);
  for (const json& c : run.report.value("checks", json::array())) {
    const std::string id = c.value("id", std::string());
    for (const char* key : {"summary", "reason", "hint"}) Add(out, id + " " + key, Said(c.value(key, json()), lang));
    AddTables(out, id, c.value("tables", json::array()));
  }
  for (const json& s : run.report.value("sections", json::array())) {
    const std::string id = s.value("id", std::string());
    for (const json& p : s.value("paragraphs", json::array())) Add(out, id + " paragraph", Said(p, lang));
    AddTables(out, id, s.value("tables", json::array()));
    AddSectionData(out, id, s.value("data", json::object()), lang);
  }
  // The terminal: its lines joined where they wrap (an indented line continues the one above).
  std::string line;
  for (size_t at = 0; at <= run.stdout_text.size();) {
    const size_t end = std::min(run.stdout_text.find('\n', at), run.stdout_text.size());
    const std::string next = run.stdout_text.substr(at, end - at);
    if (next.rfind("    ", 0) == 0 && !line.empty()) {
      line += " " + next.substr(next.find_first_not_of(' '));
    } else {
      Add(out, "terminal", line);
      line = next;
    }
    at = end + 1;
  }
  Add(out, "terminal", line);
  return out;
}

std::vector<Statement> Advice(const std::vector<Statement>& statements) {
  std::vector<Statement> out;
  for (const Statement& s : statements) {
    const bool advice = s.where.find(" hint") != std::string::npos || s.where.find("table") != std::string::npos ||
                        s.where == "terminal";
    if (advice) out.push_back(s);
  }
  return out;
}

}  // namespace labcheck::sim

#include "report/saved_report_json.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace labcheck {

using nlohmann::json;

Result<json> LoadReportJson(const std::string& path, Lang lang) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const std::string why = std::strerror(errno);
    return Status::Error(lang == Lang::Ru
                             ? fmt::format("не удалось открыть {}: {}. Сначала запустите lab_check (он пишет "
                                           "journal/lab-report.json) или укажите путь к отчёту .json.", path, why)
                             : fmt::format("cannot open {}: {}. Run lab_check first (it writes "
                                           "journal/lab-report.json) or give the path of a .json report.", path, why));
  }
  std::stringstream text;
  text << in.rdbuf();
  json report;
  try {
    report = json::parse(text.str());
  } catch (const json::parse_error& e) {
    const bool markdown = path.size() > 3 && path.compare(path.size() - 3, 3, ".md") == 0;
    const std::string md_ru = markdown ? " Это Markdown-отчёт: укажите lab-report.json." : "";
    const std::string md_en = markdown ? " This is the Markdown report: give lab-report.json instead." : "";
    return Status::Error(lang == Lang::Ru
                             ? fmt::format("{} — не JSON или файл повреждён (байт {}).{} Запустите lab_check "
                                           "заново, чтобы записать отчёт.", path, e.byte, md_ru)
                             : fmt::format("{} is not JSON or the file is damaged (byte {}).{} Run lab_check again "
                                           "to write the report.", path, e.byte, md_en));
  }
  if (!report.is_object() || (!report.contains("checks") && !report.contains("schema_version"))) {
    return Status::Error(lang == Lang::Ru
                             ? fmt::format("{} — JSON, но не отчёт lab_check (нет полей checks и schema_version).", path)
                             : fmt::format("{} is JSON but not a lab_check report (no checks, no schema_version).", path));
  }
  return report;
}

std::string JsonLabel(const json& label, Lang lang) {
  if (label.is_string()) return label.get<std::string>();
  if (label.is_object()) {
    const std::string wanted = JsonString(label, {lang == Lang::Ru ? "ru" : "en"});
    return wanted.empty() ? JsonString(label, {"en"}) : wanted;
  }
  return "";
}

std::vector<JsonMeasurement> JsonMeasurements(const json& report) {
  std::vector<JsonMeasurement> out;
  if (!report.contains("checks") || !report["checks"].is_array()) return out;
  for (const json& check : report["checks"]) {
    if (!check.is_object() || !check.contains("measurements") || !check["measurements"].is_array()) continue;
    for (const json& m : check["measurements"]) {
      if (!m.is_object() || !m.contains("key") || !m["key"].is_string()) continue;
      if (!m.contains("value") || !m["value"].is_number()) continue;
      JsonMeasurement jm;
      jm.key = m["key"].get<std::string>();
      jm.value = m["value"].get<double>();
      jm.unit = JsonString(m, {"unit"});
      jm.label = m.contains("label") ? JsonLabel(m["label"], Lang::Ru) : "";
      out.push_back(std::move(jm));
    }
  }
  return out;
}

std::optional<double> JsonValue(const json& report, std::string_view key) {
  for (const auto& m : JsonMeasurements(report)) {
    if (m.key == key) return m.value;
  }
  return std::nullopt;
}

namespace {
const json* FindById(const json& report, const char* list, std::string_view id) {
  if (!report.contains(list) || !report[list].is_array()) return nullptr;
  for (const json& item : report[list]) {
    if (item.is_object() && item.contains("id") && item["id"].is_string() && item["id"].get<std::string>() == id) {
      return &item;
    }
  }
  return nullptr;
}
}  // namespace

const json* JsonCheck(const json& report, std::string_view id) { return FindById(report, "checks", id); }
const json* JsonSection(const json& report, std::string_view id) { return FindById(report, "sections", id); }

bool DataFlag(const json& data, const char* key) {
  if (!data.is_object()) return false;
  auto it = data.find(key);
  if (it == data.end()) return false;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_number()) return it->get<double>() != 0;
  return false;
}

std::string DataString(const json& data, const char* key) {
  if (!data.is_object()) return "";
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string JsonString(const json& object, std::initializer_list<const char*> path) {
  const json* at = &object;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return "";
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

}  // namespace labcheck

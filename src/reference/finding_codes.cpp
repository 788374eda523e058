#include "reference/finding_codes.h"

#include <nlohmann/json.hpp>

#include "reference/reference_data.h"

namespace labcheck::reference {

namespace {

using nlohmann::json;

Text Bilingual(const json& j) { return j.is_object() ? Text(j.value("ru", ""), j.value("en", "")) : Text(); }

Clears ClearsFromKey(const std::string& key) {
  if (key == "reset") return Clears::Reset;
  if (key == "reboot") return Clears::Reboot;
  return Clears::Run;
}

// A parse failure leaves an empty table, and every finding then reads "unclassified" (isolate):
// the strict reading. The table's test parses the embedded file, so it cannot ship broken.
const std::vector<FindingCode>& Loaded() {
  static const std::vector<FindingCode> codes = [] {
    std::vector<FindingCode> out;
    const json root = json::parse(ReferenceFile("finding_codes.json"), nullptr, false);
    if (root.is_discarded() || !root.is_object()) return out;
    for (const json& row : root.value("codes", json::array())) {
      FindingCode c;
      c.code = row.value("code", "");
      c.key = row.value("key", "");
      c.xid_class = row.value("xid_class", "");
      c.severity = SeverityFromKey(row.value("severity", "")).value_or(Severity::Isolate);
      c.clears = ClearsFromKey(row.value("clears", ""));
      c.title = Bilingual(row.value("title", json(nullptr)));
      c.action = Bilingual(row.value("action", json(nullptr)));
      c.dcgm = row.value("dcgm", "");
      out.push_back(std::move(c));
    }
    return out;
  }();
  return codes;
}

const FindingCode& Unclassified() {
  static const FindingCode fallback = [] {
    for (const FindingCode& c : Loaded())
      if (c.key == "unclassified") return c;
    FindingCode c;
    c.code = "LC900";
    c.key = "unclassified";
    return c;
  }();
  return fallback;
}

}  // namespace

const std::vector<FindingCode>& FindingCodes() { return Loaded(); }

const FindingCode& FindingCodeFor(const std::string& key) {
  for (const FindingCode& c : Loaded())
    if (c.key == key) return c;
  return Unclassified();
}

const FindingCode* FindingCodeForXidClass(const std::string& xid_class) {
  for (const FindingCode& c : Loaded())
    if (!c.xid_class.empty() && c.xid_class == xid_class) return &c;
  return nullptr;
}

const FindingCode* FindingCodeByCode(const std::string& code) {
  for (const FindingCode& c : Loaded())
    if (c.code == code) return &c;
  return nullptr;
}

const char* SeverityKey(Severity severity) {
  switch (severity) {
    case Severity::Monitor: return "monitor";
    case Severity::Config: return "config";
    case Severity::Reset: return "reset";
    case Severity::Reboot: return "reboot";
    case Severity::Isolate: return "isolate";
  }
  return "isolate";
}

std::optional<Severity> SeverityFromKey(const std::string& key) {
  for (Severity s : {Severity::Monitor, Severity::Config, Severity::Reset, Severity::Reboot, Severity::Isolate})
    if (key == SeverityKey(s)) return s;
  return std::nullopt;
}

const char* ClearsKey(Clears clears) {
  switch (clears) {
    case Clears::Run: return "run";
    case Clears::Reset: return "reset";
    case Clears::Reboot: return "reboot";
  }
  return "run";
}

Text SeverityName(Severity severity) {
  switch (severity) {
    case Severity::Monitor: return T("наблюдать", "monitor");
    case Severity::Config: return T("исправить настройку", "fix a setting");
    case Severity::Reset: return T("сбросить GPU", "reset the GPU");
    case Severity::Reboot: return T("перезагрузить узел", "reboot the node");
    case Severity::Isolate: return T("вывести железо, заявка", "isolate the hardware, open a ticket");
  }
  return {};
}

namespace {

std::string Fill(std::string text, const std::map<std::string, std::string>& values, Lang lang) {
  for (const auto& [name, value] : values) {
    const std::string token = "{" + name + "}";
    for (size_t at; (at = text.find(token)) != std::string::npos;) text.replace(at, token.size(), value);
  }
  const std::string serial = "{serial}";
  for (size_t at; (at = text.find(serial)) != std::string::npos;)
    text.replace(at, serial.size(), lang == Lang::Ru ? "не известен" : "unknown");
  return text;
}

}  // namespace

Text FillAction(const Text& action, const std::map<std::string, std::string>& values) {
  return Text(Fill(action.ru, values, Lang::Ru), Fill(action.en, values, Lang::En));
}

}  // namespace labcheck::reference

#include "report/anonymize.h"

#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

namespace labcheck {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void ReplaceAll(std::string& text, const std::string& from, const std::string& to, bool whole_word) {
  if (from.empty()) return;
  size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) {
    const size_t end = pos + from.size();
    const bool bounded = !whole_word || ((pos == 0 || !IsWordChar(text[pos - 1])) &&
                                         (end == text.size() || !IsWordChar(text[end])));
    // A home prefix must end at a path boundary: "/home/ann" is not inside "/home/anna".
    const bool path_end = whole_word || end == text.size() || !IsWordChar(text[end]) || text[end] == '/';
    if (bounded && path_end) {
      text.replace(pos, from.size(), to);
      pos += to.size();
    } else {
      pos = end;
    }
  }
}

// Names too generic to be personal, and too common in ordinary text to replace blindly.
bool IsGenericName(const std::string& name) {
  return name.size() < 3 || name == "root" || name == "user" || name == "admin" || name == "localhost";
}

}  // namespace

Identity Identity::OfThisProcess() {
  Identity who;
  if (const char* home = std::getenv("HOME")) who.home = home;
  if (const passwd* pw = getpwuid(getuid())) {
    who.user = pw->pw_name ? pw->pw_name : "";
    if (who.home.empty() && pw->pw_dir) who.home = pw->pw_dir;
  }
  if (who.user.empty()) {
    if (const char* u = std::getenv("USER")) who.user = u;
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) who.hostname = host;
  while (who.home.size() > 1 && who.home.back() == '/') who.home.pop_back();
  return who;
}

std::string Anonymize(const std::string& text, const Identity& who) {
  std::string out = text;
  if (who.home.size() > 1) ReplaceAll(out, who.home, "~", /*whole_word=*/false);
  if (!IsGenericName(who.hostname)) ReplaceAll(out, who.hostname, "<host>", true);
  if (!IsGenericName(who.user)) ReplaceAll(out, who.user, "<user>", true);
  return out;
}

nlohmann::json AnonymizeJson(const nlohmann::json& value, const Identity& who) {
  if (value.is_string()) return Anonymize(value.get<std::string>(), who);
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(AnonymizeJson(item, who));
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) out[Anonymize(it.key(), who)] = AnonymizeJson(it.value(), who);
    return out;
  }
  return value;
}

}  // namespace labcheck

namespace labcheck {
namespace {

void AnonymizeText(Text& text, const Identity& who) {
  text.ru = Anonymize(text.ru, who);
  text.en = Anonymize(text.en, who);
}

void AnonymizeTable(Table& table, const Identity& who) {
  AnonymizeText(table.title, who);
  for (auto& c : table.columns) AnonymizeText(c, who);
  for (auto& row : table.rows) {
    for (auto& cell : row) AnonymizeText(cell, who);
  }
  for (auto& n : table.notes) AnonymizeText(n, who);
}

}  // namespace

void AnonymizeReport(Report& report, const Identity& who) {
  report.meta.python = Anonymize(report.meta.python, who);
  for (auto& c : report.checks) {
    for (Text* t : {&c.title, &c.summary, &c.reason, &c.hint}) AnonymizeText(*t, who);
    c.error = Anonymize(c.error, who);
    for (auto& m : c.measurements) {
      for (Text* t : {&m.label, &m.method, &m.reference_label}) AnonymizeText(*t, who);
    }
    for (auto& t : c.tables) AnonymizeTable(t, who);
    c.data = AnonymizeJson(c.data, who);
  }
  for (auto& s : report.sections) {
    AnonymizeText(s.title, who);
    for (auto& p : s.paragraphs) AnonymizeText(p, who);
    for (auto& t : s.tables) AnonymizeTable(t, who);
    s.data = AnonymizeJson(s.data, who);
  }
}

}  // namespace labcheck

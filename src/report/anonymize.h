// The report is meant to be forwarded: the user's home directory becomes "~", and the user name and
// host name never appear (the seed: «Имени пользователя там нет: домашняя папка в путях заменена на ~»).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace labcheck {

struct Identity {
  std::string home;      // "/home/anna"
  std::string user;      // "anna"
  std::string hostname;  // "anna-desktop"
  static Identity OfThisProcess();
};

// Replaces the home directory (as a path prefix anywhere in the text) with "~", then the host name
// with "<host>" and the user name with "<user>" where they stand as whole words.
std::string Anonymize(const std::string& text, const Identity& who);
// The same for every string (and object key) in a JSON value.
nlohmann::json AnonymizeJson(const nlohmann::json& value, const Identity& who);

}  // namespace labcheck

#include "report/report.h"

namespace labcheck {

// Anonymises every text of the report in place, before any writer lays it out: a table's
// columns are then measured on the text that is finally shown ("~", not "/home/anna").
void AnonymizeReport(Report& report, const Identity& who);

}  // namespace labcheck

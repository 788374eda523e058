// `lab_check compare A.json B.json`: two reports side by side (two machines, or before and after
// a fix): every measurement with the ratio B/A, what changed in the environment and which checks
// changed their outcome. Works on any schema version; says when the versions differ.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace labcheck::saved_reports {

struct CompareRow {
  std::string key;
  std::string label;
  std::string unit;
  std::optional<double> a, b;
  std::optional<double> ratio;  // b / a
  bool off_2x = false;          // ratio ≤ 0.5 or ≥ 2
};

struct EnvChange {
  std::string what;  // "driver_version", "packages.torch", "GPU 0 PCIe"
  std::string a, b;  // "—" where absent
};

struct Comparison {
  std::string a_name, b_name;  // as given on the command line
  std::optional<int> a_schema, b_schema;
  std::vector<CompareRow> rows;
  std::vector<EnvChange> environment;  // only what differs
  std::vector<EnvChange> outcomes;     // checks whose outcome differs
};

Comparison Compare(const nlohmann::json& a, const nlohmann::json& b, std::string a_name, std::string b_name);
std::string CompareMarkdown(const Comparison& c, Lang lang);
nlohmann::json CompareJson(const Comparison& c);
// One report's figure in a comparison table (Markdown and HTML): the number as the «Ожидалось»
// table prints it, or "—" where that report lacks it.
std::string FigureCell(const std::optional<double>& v);

}  // namespace labcheck::saved_reports

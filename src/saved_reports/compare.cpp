#include "saved_reports/compare.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "expect/deviation.h"
#include "report/saved_report_json.h"

namespace labcheck::saved_reports {

using expect::Num;  // figures read as in the «Ожидалось» table
namespace {

using nlohmann::json;

std::optional<int> SchemaOf(const json& r) {
  if (r.contains("schema_version") && r["schema_version"].is_number_integer()) return r["schema_version"].get<int>();
  return std::nullopt;
}

// The environment facts worth comparing, flattened to "name → value".
std::map<std::string, std::string> EnvironmentFacts(const json& r) {
  std::map<std::string, std::string> f;
  auto put = [&](const std::string& name, const std::string& value) {
    if (!value.empty()) f[name] = value;
  };
  put("lab_check", JsonString(r, {"tool", "version"}));
  if (const json* sys = JsonCheck(r, "env.system"); sys && sys->contains("data")) {
    const json& d = (*sys)["data"];
    put("os", JsonString(d, {"os"}));
    put("kernel", JsonString(d, {"kernel"}));
    put("cpu", JsonString(d, {"cpu", "model"}));
    if (d.contains("memory") && d["memory"].contains("total_gib") && d["memory"]["total_gib"].is_number()) {
      put("memory_total_gib", Num(d["memory"]["total_gib"].get<double>()));
    }
  }
  if (const json* py = JsonCheck(r, "env.python"); py && py->contains("data")) {
    const json& d = (*py)["data"];
    put("python", JsonString(d, {"python", "version"}));
    if (d.contains("packages") && d["packages"].is_object()) {
      for (const auto& [name, version] : d["packages"].items()) {
        f["packages." + name] = version.is_string() ? version.get<std::string>() : "—";
      }
    }
  }
  if (const json* inv = JsonCheck(r, "gpu.inventory"); inv && inv->contains("data")) {
    const json& d = (*inv)["data"];
    put("driver_version", JsonString(d, {"driver_version"}));
    put("cuda_driver_version", JsonString(d, {"cuda_driver_version"}));
    put("nccl_version", JsonString(d, {"nccl_version"}));
    if (d.contains("gpus") && d["gpus"].is_array()) {
      f["gpu_count"] = std::to_string(d["gpus"].size());
      for (const json& g : d["gpus"]) {
        if (!g.is_object() || !g.contains("index") || !g["index"].is_number_integer()) continue;
        const std::string gpu = fmt::format("GPU {}", g["index"].get<int>());
        put(gpu, JsonString(g, {"name"}));
        if (g.contains("pcie_gen_max") && g["pcie_gen_max"].is_number_integer() && g.contains("pcie_width_max") &&
            g["pcie_width_max"].is_number_integer()) {
          put(gpu + " PCIe", fmt::format("{}.0 x{}", g["pcie_gen_max"].get<int>(), g["pcie_width_max"].get<int>()));
        }
        if (g.contains("power_limit_w") && g["power_limit_w"].is_number()) {
          put(gpu + " power_limit_w", Num(g["power_limit_w"].get<double>()));
        }
      }
    }
  }
  if (r.contains("meta") && r["meta"].is_object()) {
    const json& m = r["meta"];
    if (DataFlag(m, "quick")) f["--quick"] = "yes";
    if (DataFlag(m, "skip_dist")) f["--skip-dist"] = "yes";
    if (DataFlag(m, "interrupted")) f["interrupted"] = "yes";
  }
  return f;
}

std::map<std::string, std::string> Outcomes(const json& r) {
  std::map<std::string, std::string> out;
  if (!r.contains("checks") || !r["checks"].is_array()) return out;
  for (const json& c : r["checks"]) {
    const std::string id = JsonString(c, {"id"});
    const std::string status = JsonString(c, {"status"});
    if (!id.empty() && !status.empty()) out[id] = status;
  }
  return out;
}

std::vector<EnvChange> Differences(const std::map<std::string, std::string>& a,
                                   const std::map<std::string, std::string>& b) {
  std::vector<EnvChange> out;
  std::map<std::string, std::pair<std::string, std::string>> all;
  for (const auto& [k, v] : a) all[k].first = v;
  for (const auto& [k, v] : b) all[k].second = v;
  for (const auto& [k, values] : all) {
    if (values.first != values.second) {
      out.push_back({k, values.first.empty() ? "—" : values.first, values.second.empty() ? "—" : values.second});
    }
  }
  return out;
}

}  // namespace

std::string FigureCell(const std::optional<double>& v) { return v ? Num(*v) : "—"; }

Comparison Compare(const json& a, const json& b, std::string a_name, std::string b_name) {
  Comparison c;
  c.a_name = std::move(a_name);
  c.b_name = std::move(b_name);
  c.a_schema = SchemaOf(a);
  c.b_schema = SchemaOf(b);
  // Rows in A's order, then keys only B has, so a new check shows up at the end.
  std::vector<std::string> order;
  std::map<std::string, CompareRow> rows;
  auto add = [&](const JsonMeasurement& m, bool is_a) {
    auto [it, inserted] = rows.try_emplace(m.key);
    if (inserted) order.push_back(m.key);
    CompareRow& row = it->second;
    row.key = m.key;
    if (row.label.empty()) row.label = m.label;
    if (row.unit.empty()) row.unit = m.unit;
    (is_a ? row.a : row.b) = m.value;
  };
  for (const auto& m : JsonMeasurements(a)) add(m, true);
  for (const auto& m : JsonMeasurements(b)) add(m, false);
  for (const auto& key : order) {
    CompareRow row = rows[key];
    if (row.a && row.b && *row.a != 0) {
      row.ratio = *row.b / *row.a;
      row.off_2x = *row.ratio <= 0.5 || *row.ratio >= 2;
    }
    c.rows.push_back(std::move(row));
  }
  c.environment = Differences(EnvironmentFacts(a), EnvironmentFacts(b));
  c.outcomes = Differences(Outcomes(a), Outcomes(b));
  return c;
}

std::string CompareMarkdown(const Comparison& c, Lang lang) {
  const bool ru = lang == Lang::Ru;
  std::string out = fmt::format("# {}\n\nA: {}\nB: {}\n\n", ru ? "Сравнение отчётов" : "Report comparison", c.a_name, c.b_name);
  if (c.a_schema != c.b_schema) {
    auto v = [](const std::optional<int>& s) { return s ? std::to_string(*s) : std::string("?"); };
    out += ru ? fmt::format("Версии схемы разные (A: {}, B: {}): сравниваются только общие замеры.\n\n",
                            v(c.a_schema), v(c.b_schema))
              : fmt::format("The schema versions differ (A: {}, B: {}): only shared measurements are compared.\n\n",
                            v(c.a_schema), v(c.b_schema));
  }
  out += fmt::format("## {}\n\n| {} | A | B | B/A | {} |\n|---|---|---|---|---|\n", ru ? "Замеры" : "Measurements",
                     ru ? "Замер" : "Measurement", ru ? "Расхождение ≥ 2×" : "Off by ≥ 2×");
  for (const CompareRow& r : c.rows) {
    const std::string name = r.label.empty() ? r.key : fmt::format("{} (`{}`)", r.label, r.key);
    out += fmt::format("| {}{} | {} | {} | {} | {} |\n", name, r.unit.empty() ? "" : ", " + r.unit, FigureCell(r.a), FigureCell(r.b),
                       r.ratio ? fmt::format("{:.2f}", *r.ratio) : "—", r.off_2x ? (ru ? "да" : "yes") : "");
  }
  auto table = [&](const char* title, const std::vector<EnvChange>& changes) {
    out += fmt::format("\n## {}\n\n", title);
    if (changes.empty()) {
      out += ru ? "Без изменений.\n" : "No changes.\n";
      return;
    }
    out += "| | A | B |\n|---|---|---|\n";
    for (const auto& e : changes) out += fmt::format("| {} | {} | {} |\n", e.what, e.a, e.b);
  };
  table(ru ? "Что изменилось в окружении" : "What changed in the environment", c.environment);
  table(ru ? "Изменившиеся статусы проверок" : "Checks whose outcome changed", c.outcomes);
  return out;
}

json CompareJson(const Comparison& c) {
  json j = {{"a", c.a_name}, {"b", c.b_name}};
  j["a_schema_version"] = c.a_schema ? json(*c.a_schema) : json(nullptr);
  j["b_schema_version"] = c.b_schema ? json(*c.b_schema) : json(nullptr);
  j["rows"] = json::array();
  for (const auto& r : c.rows) {
    j["rows"].push_back({{"key", r.key}, {"label", r.label}, {"unit", r.unit},
                         {"a", r.a ? json(*r.a) : json(nullptr)}, {"b", r.b ? json(*r.b) : json(nullptr)},
                         {"ratio", r.ratio ? json(*r.ratio) : json(nullptr)}, {"off_2x", r.off_2x}});
  }
  auto changes = [](const std::vector<EnvChange>& list) {
    json arr = json::array();
    for (const auto& e : list) arr.push_back({{"what", e.what}, {"a", e.a}, {"b", e.b}});
    return arr;
  };
  j["environment"] = changes(c.environment);
  j["outcomes"] = changes(c.outcomes);
  return j;
}

}  // namespace labcheck::saved_reports

#include "node_check/outputs/node_fleet.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "node_check/outputs/node_report.h"
#include "platform/files.h"
#include "reference/finding_codes.h"
#include "report/display_width.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

std::vector<std::string> Expand(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(path, ec))
      if (entry.path().extension() == ".json" || entry.path().extension() == ".jsonl") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    return files;
  }
  if (fs::exists(path, ec) || path.find_first_of("*?[") == std::string::npos) return {path};
  std::vector<std::string> files;
  glob_t g{};
  if (glob(path.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) files.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return files.empty() ? std::vector<std::string>{path} : files;
}

// One object (pretty-printed by --out) or one per line (--json under srun; a launcher's own
// lines between them are skipped).
std::vector<json> ParseAll(const std::string& text) {
  json whole = json::parse(text, nullptr, false);
  if (!whole.is_discarded()) return whole.is_array() ? whole.get<std::vector<json>>() : std::vector<json>{whole};
  std::vector<json> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t at = line.find('{');
    if (at == std::string::npos) continue;
    json j = json::parse(line.substr(at), nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

// How bad a finding is, for "worst finding": by its severity (data/finding_codes.json: isolate,
// reboot, reset, config), then the card is broken, then its links, then it is slow, then it is set
// up wrong. Reports written before findings had a severity rank by the second alone.
int ItemRank(const std::string& item) {
  static const std::map<std::string, int> kRank = {
      {"driver_failed", 100}, {"fabric_manager", 99}, {"gpu_none", 97}, {"gpu_count", 95}, {"gpu_off_bus", 94},
      {"gpu_fell_off_bus", 94}, {"gpu_init_failed", 94}, {"network_card_lost", 92}, {"health_unavailable", 90},
      {"ecc_uncorrected", 85}, {"row_remap_failed", 82}, {"remapped_rows_pending", 80}, {"retired_pages_limit", 79},
      {"retired_pages_pending", 78}, {"recovery_reboot", 77}, {"recovery_reset", 76},
      {"recovery_drain_p2p", 76}, {"recovery_imex_domain", 71}, {"xid_support", 75},
      {"xid_reboot", 74}, {"xid_reset", 70}, {"nvswitch_sxid", 69}, {"compute_mode", 68}, {"model", 66}, {"memory", 65},
      {"nvlink_rx_detect_failed", 61}, {"nvlink_down", 60}, {"nvlink_errors", 58}, {"pcie_link", 55}, {"pcie_replay", 50}, {"network_port", 49},
      {"matmul_error", 48}, {"copy_error", 47}, {"matmul_band", 45}, {"copy_band", 44}, {"matmul_spread", 40},
      {"copy_spread", 39}, {"other_processes", 30}, {"power_limit", 25}, {"mig_mode", 20}, {"persistence_mode", 10}};
  auto it = kRank.find(item);
  return it == kRank.end() ? 50 : it->second;
}

int Rank(const json& finding) {
  const std::optional<reference::Severity> severity = reference::SeverityFromKey(finding.value("severity", ""));
  return (severity ? static_cast<int>(*severity) * 1000 : 0) + ItemRank(finding.value("item", ""));
}

// Findings that kept the node out of service (older reports: every finding did).
bool Failed(const json& finding) { return finding.value("fails", true); }

std::string SlowestCard(const json& report) {
  std::optional<double> lowest;
  int index = 0;
  for (const json& g : report.value("gpus", json::array())) {
    const json& t = g.value("matmul_tflops", json(nullptr));
    if (t.is_number() && (!lowest || t.get<double>() < *lowest)) {
      lowest = t.get<double>();
      index = g.value("index", 0);
    }
  }
  return lowest ? fmt::format("GPU{} {:.0f} TFLOPS", index, *lowest) : "";
}

int VerdictOrder(const std::string& v) { return v == "FAIL" ? 0 : v == "UNKNOWN" ? 1 : 2; }

}  // namespace

Result<std::vector<json>> ReadNodeReports(const std::vector<std::string>& paths) {
  std::vector<json> reports;
  for (const std::string& pattern : paths) {
    for (const std::string& path : Expand(pattern)) {
      Result<std::string> text = ReadFile(path);
      if (!text.ok()) return Status::Error(path + ": " + text.status().message());
      size_t found = 0;
      for (json& j : ParseAll(*text))
        if (IsNodeReport(j)) {
          if (!j.contains("node") || j["node"].get<std::string>().empty())
            j["node"] = std::filesystem::path(path).stem().string();
          reports.push_back(std::move(j));
          ++found;
        }
      if (found == 0) return Status::Error(path + ": no node-check JSON in it (make one with lab_check node-check --json)");
    }
  }
  return reports;
}

std::vector<FleetRow> FleetRows(const std::vector<json>& reports, Lang lang) {
  std::vector<FleetRow> rows;
  for (const json& r : reports) {
    FleetRow row;
    row.node = r.value("node", std::string("?"));
    row.verdict = r.value("verdict", std::string("UNKNOWN"));
    row.slowest_card = SlowestCard(r);
    json findings = json::array();
    for (const json& f : r.value("findings", json::array()))
      if (Failed(f)) findings.push_back(f);
    row.findings = static_cast<int>(findings.size());
    const json* worst = nullptr;
    for (const json& f : findings)
      if (worst == nullptr || Rank(f) > Rank(*worst)) worst = &f;
    const char* key = lang == Lang::Ru ? "text_ru" : "text";
    if (worst != nullptr) {
      const std::string code = worst->value("code", std::string());
      row.worst = (code.empty() ? "" : code + " ") + worst->value(key, worst->value("text", std::string()));
    }
    else if (row.verdict == "UNKNOWN") row.worst = r.value(lang == Lang::Ru ? "line_ru" : "line", std::string());
    else row.worst = "—";
    if (worst != nullptr && row.findings > 1)
      row.worst += lang == Lang::Ru ? fmt::format(" (+{} ещё)", row.findings - 1) : fmt::format(" (+{} more)", row.findings - 1);
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const FleetRow& a, const FleetRow& b) {
    if (VerdictOrder(a.verdict) != VerdictOrder(b.verdict)) return VerdictOrder(a.verdict) < VerdictOrder(b.verdict);
    return a.node < b.node;
  });
  return rows;
}

std::string FleetTable(const std::vector<FleetRow>& rows, Lang lang) {
  const bool ru = lang == Lang::Ru;
  std::vector<std::vector<std::string>> cells = {
      {ru ? "узел" : "node", ru ? "вердикт" : "verdict", ru ? "самая медленная карта" : "slowest card",
       ru ? "худшая находка" : "worst finding"}};
  for (const FleetRow& r : rows) cells.push_back({r.node, r.verdict, r.slowest_card.empty() ? "—" : r.slowest_card, r.worst});
  std::vector<size_t> width(4, 0);
  for (const auto& row : cells)
    for (size_t c = 0; c < 3; ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
  std::string out;
  for (const auto& row : cells) out += PadRight(row[0], width[0]) + "  " + PadRight(row[1], width[1]) + "  " + PadRight(row[2], width[2]) + "  " + row[3] + "\n";
  int fail = 0, unknown = 0;
  for (const FleetRow& r : rows) {
    fail += r.verdict == "FAIL";
    unknown += r.verdict == "UNKNOWN";
  }
  out += ru ? fmt::format("\nУзлов: {}, FAIL: {}, не понять: {}, OK: {}\n", rows.size(), fail, unknown, rows.size() - fail - unknown)
            : fmt::format("\nNodes: {}, FAIL: {}, unknown: {}, OK: {}\n", rows.size(), fail, unknown, rows.size() - fail - unknown);
  return out;
}

json FleetJson(const std::vector<FleetRow>& rows) {
  json out = json::array();
  for (const FleetRow& r : rows)
    out.push_back({{"node", r.node}, {"verdict", r.verdict}, {"slowest_card", r.slowest_card}, {"worst_finding", r.worst},
                   {"findings", r.findings}});
  return out;
}

std::optional<int> CompareFleet(const std::vector<std::string>& files, bool json_out, Lang lang, std::ostream& out,
                                std::ostream& err) {
  if (files.empty()) return std::nullopt;
  // Node reports or not: decided by the first input alone, so that a bad second file is an error
  // of the fleet table, not a silent switch to the two-report comparison.
  const std::vector<std::string> first = Expand(files.front());
  if (first.empty()) return std::nullopt;
  Result<std::string> text = ReadFile(first.front());
  if (!text.ok()) return std::nullopt;
  const std::vector<json> parsed = ParseAll(*text);
  if (std::none_of(parsed.begin(), parsed.end(), [](const json& j) { return IsNodeReport(j); })) return std::nullopt;
  Result<std::vector<json>> reports = ReadNodeReports(files);
  if (!reports.ok()) {
    err << "lab_check compare: " << reports.status().message() << "\n";
    return 2;
  }
  const std::vector<FleetRow> rows = FleetRows(*reports, lang);
  out << (json_out ? FleetJson(rows).dump(2) + "\n" : FleetTable(rows, lang));
  return 0;
}

}  // namespace labcheck::node_check

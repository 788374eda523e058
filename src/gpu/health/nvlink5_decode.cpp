#include "gpu/health/nvlink5_decode.h"

#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/regex_instances.h"  // <regex>, its code generated once
#include "reference/reference_data.h"

namespace labcheck::gpu::health {

namespace {

using nlohmann::json;

struct Sheet {
  std::vector<Nvlink5Row> rows;
  int v2_from_driver = 575;
  std::map<std::string, std::string> outcomes;
};

// A parse failure leaves no rows: every line then reads "not decoded" and is judged strictly; the
// sheet's tests parse the embedded file, so it cannot ship broken.
const Sheet& LoadedSheet() {
  static const Sheet sheet = [] {
    Sheet s;
    const json root = json::parse(reference::ReferenceFile("nvlink5_xid_decode.json"), nullptr, false);
    if (root.is_discarded() || !root.is_object()) return s;
    s.v2_from_driver = root.value("v2_from_driver", 575);
    const json outcomes = root.value("outcomes", json::object());  // items() refers to it: not a temporary
    for (const auto& [action, cls] : outcomes.items()) s.outcomes[action] = cls.get<std::string>();
    for (const json& r : root.value("rows", json::array())) {
      Nvlink5Row row{r.value("row", 0), r.value("xid", 0), r.value("subcode", ""), r.value("intrinfo_v1", ""),
                     r.value("intrinfo_v2", "")};
      for (const json& status : r.value("error_status", json::array()))
        row.error_status.push_back(static_cast<std::uint32_t>(std::stoul(status.get<std::string>(), nullptr, 16)));
      row.action = r.value("action", "");
      const json a2 = r.value("action2", json::object());
      row.action2_v1 = a2.value("intrinfo_v1", ""), row.action2_v2 = a2.value("intrinfo_v2", ""), row.action2 = a2.value("action", "");
      row.investigatory = r.value("investigatory", ""), row.severity = r.value("severity", "");
      s.rows.push_back(std::move(row));
    }
    return s;
  }();
  return sheet;
}

struct RowMatch {
  const Nvlink5Row* row;
  std::string action;
};

bool StatusMatches(const Nvlink5Row& row, std::uint32_t status) {
  if (row.error_status.empty()) return true;
  for (std::uint32_t s : row.error_status)
    if (s == status) return true;
  return false;
}

std::vector<RowMatch> MatchesIn(bool v2, const Nvlink5Line& l) {
  std::vector<RowMatch> found;
  for (const Nvlink5Row& row : LoadedSheet().rows) {
    if (row.xid != l.xid || !StatusMatches(row, l.error_status)) continue;
    if (IntrinfoMatches(v2 ? row.intrinfo_v2 : row.intrinfo_v1, l.intrinfo)) found.push_back({&row, row.action});
    else if (!row.action2.empty() && IntrinfoMatches(v2 ? row.action2_v2 : row.action2_v1, l.intrinfo))
      found.push_back({&row, row.action2});
  }
  return found;
}

// "570.86.15" → 570; 0 when there is no version.
int DriverMajor(const std::string& version) { return std::atoi(version.c_str()); }

Text NotDecoded(const std::string& ru, const std::string& en) { return T("не расшифрована: " + ru, "not decoded: " + en); }

Nvlink5Decoding FromMatches(const std::vector<RowMatch>& matches, const Nvlink5Line& l, const std::string& column) {
  Nvlink5Decoding d;
  d.column = column;
  std::set<std::string> actions;
  for (const RowMatch& m : matches) actions.insert(m.action), d.rows.push_back(m.row->row);
  const std::string what = fmt::format("IntrInfo 0x{:08x}, error status 0x{:08x}", l.intrinfo, l.error_status);
  if (matches.empty()) {
    d.why = NotDecoded(fmt::format("в таблице NVIDIA нет строки для XID {} с {} (столбец {})", l.xid, what, column),
                       fmt::format("no row of NVIDIA's decode sheet for XID {} has {} ({} column)", l.xid, what, column));
    return d;
  }
  if (actions.size() > 1) {
    d.why = NotDecoded(fmt::format("строки таблицы NVIDIA для {} расходятся (столбец {})", what, column),
                       fmt::format("the sheet's rows for {} disagree ({} column)", what, column));
    return d;
  }
  d.action = *actions.begin();
  d.subcode = matches.front().row->subcode;
  d.investigatory = matches.front().row->investigatory;
  if (!Nvlink5OutcomeClass(d.action)) {
    d.why = NotDecoded("действие таблицы " + d.action + " не из известных", "the sheet's action " + d.action + " is not one we know");
    d.action.clear();
    return d;
  }
  d.decoded = true;
  d.why = T(fmt::format("{}, {}: по таблице NVIDIA {} (строка {}, столбец {})", d.subcode, what, d.action, d.rows.front(), column),
            fmt::format("{}, {}: NVIDIA's decode sheet says {} (row {}, {} column)", d.subcode, what, d.action, d.rows.front(), column));
  return d;
}

}  // namespace

bool IntrinfoMatches(const std::string& pattern, std::uint32_t value) {
  if (pattern.size() != 32) return false;
  for (size_t i = 0; i < 32; ++i) {
    const bool bit = (value >> (31 - i)) & 1u;
    if ((pattern[i] == '1' && !bit) || (pattern[i] == '0' && bit)) return false;
    if (pattern[i] != '0' && pattern[i] != '1' && pattern[i] != '-') return false;
  }
  return true;
}

std::optional<Nvlink5Line> ParseNvlink5Line(const std::string& line) {
  // NVIDIA's format (the catalog's WORKFLOW_NVLINK5_ERR): "Xid (PCI:0000:BB:DF): <Xid Number> <sub
  // component> <fatal vs nonfatal> <Crosscontain> <injected> <link> (<intrInfo> <errorStatus>
  // <errorDebugData[0]> …)"; lines from machines also carry "pid=…, name=…, " before the subcode.
  static const std::regex kNvlink5(
      R"(NVRM: Xid \((?:PCI:)?[0-9A-Fa-f:.]+[^)]*\): (\d+), (?:pid=[^,]*, )?(?:name=[^,]*, )?([A-Za-z0-9_/]+)\s+(Fatal|Nonfatal|Non-fatal)\s+XC\d+\s+i\d+\s+Link\s+(-?\d+)\s+\((0x[0-9A-Fa-f]+)\s+(0x[0-9A-Fa-f]+))");
  std::smatch m;
  if (!std::regex_search(line, m, kNvlink5)) return std::nullopt;
  Nvlink5Line l;
  l.xid = std::stoi(m[1].str());
  l.subcode = m[2].str(), l.severity = m[3].str();
  l.link = std::stoi(m[4].str());
  l.intrinfo = static_cast<std::uint32_t>(std::stoul(m[5].str(), nullptr, 16));
  l.error_status = static_cast<std::uint32_t>(std::stoul(m[6].str(), nullptr, 16));
  return l;
}

Nvlink5Decoding DecodeNvlink5(int xid, const std::string& line, const std::string& driver_version) {
  const std::optional<Nvlink5Line> l = ParseNvlink5Line(line);
  if (!l || l->xid != xid) {
    Nvlink5Decoding d;
    d.why = NotDecoded("в строке нет IntrInfo и Error Status в формате NVLink5 NVIDIA",
                       "the line has no IntrInfo and Error Status in NVIDIA's NVLink5 format");
    return d;
  }
  const int major = DriverMajor(driver_version);
  if (major > 0) {
    const bool v2 = major >= LoadedSheet().v2_from_driver;
    return FromMatches(MatchesIn(v2, *l), *l, fmt::format("{} (driver {})", v2 ? "V2" : "V1", driver_version));
  }
  // The writer's version is not in the log: a V1 IntrInfo rarely fits a V2 pattern of the same XID
  // or the other way round, so both are tried and must agree.
  std::vector<RowMatch> both = MatchesIn(false, *l);
  for (const RowMatch& m : MatchesIn(true, *l)) both.push_back(m);
  return FromMatches(both, *l, "V1 and V2 (the log does not say which driver wrote it)");
}

std::optional<std::string> Nvlink5OutcomeClass(const std::string& action) {
  const auto& outcomes = LoadedSheet().outcomes;
  auto it = outcomes.find(action);
  if (it == outcomes.end()) return std::nullopt;
  return it->second;
}

const std::vector<Nvlink5Row>& Nvlink5Rows() { return LoadedSheet().rows; }

}  // namespace labcheck::gpu::health

// The table of finding codes as shipped (data/finding_codes.json): it parses, its codes are stable
// in form and never used twice, every severity and clearing rule is one the code knows, each XID
// class that fails a node has its row, and docs/cluster-gate.md's table is the table, row by row.
#include "reference/finding_codes.h"

#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/files.h"
#include "reference/reference_data.h"

namespace labcheck::reference {
namespace {

using nlohmann::json;

TEST(FindingCodes, EveryRowIsCompleteAndNoCodeOrKeyIsUsedTwice) {
  const json root = json::parse(ReferenceFile("finding_codes.json"));
  ASSERT_EQ(FindingCodes().size(), root["codes"].size());
  ASSERT_GE(FindingCodes().size(), 30u);
  std::set<std::string> codes, keys;
  for (const json& row : root["codes"]) {
    const std::string code = row.value("code", "");
    EXPECT_TRUE(std::regex_match(code, std::regex("LC[1-9][0-9]{2}"))) << code;
    EXPECT_TRUE(codes.insert(code).second) << "code used twice: " << code;
    EXPECT_TRUE(keys.insert(row.value("key", "")).second) << "key used twice: " << row.value("key", "");
    EXPECT_TRUE(SeverityFromKey(row.value("severity", "")).has_value()) << code;
    EXPECT_TRUE(root["clears"].contains(row.value("clears", ""))) << code;
    for (const char* part : {"title", "action"})
      for (const char* lang : {"en", "ru"}) EXPECT_FALSE(row[part].value(lang, "").empty()) << code << " " << part << " " << lang;
  }
  for (const FindingCode& c : FindingCodes()) EXPECT_EQ(&FindingCodeFor(c.key), FindingCodeByCode(c.code)) << c.code;
}

TEST(FindingCodes, TheIssuesExamplesHaveTheirSeverities) {
  EXPECT_EQ(FindingCodeFor("remapped_rows_pending").severity, Severity::Reset);
  EXPECT_EQ(FindingCodeFor("power_limit").severity, Severity::Config);
  EXPECT_EQ(FindingCodeFor("nvlink_down").severity, Severity::Isolate);
  EXPECT_EQ(FindingCodeFor("ecc_corrected").severity, Severity::Monitor);
  EXPECT_EQ(FindingCodeFor("xid_reboot").clears, Clears::Reboot);
}

TEST(FindingCodes, AnUnknownKeyIsUnclassifiedAndStrict) {
  const FindingCode& c = FindingCodeFor("a_key_nobody_wrote_a_row_for");
  EXPECT_EQ(c.code, "LC900");
  EXPECT_EQ(c.severity, Severity::Isolate);
  EXPECT_EQ(FindingCodeByCode("LC000"), nullptr);
}

// Every class data/xid_catalog.json gives that can fail a node has exactly one row.
TEST(FindingCodes, EachFailingXidClassHasItsRow) {
  const json catalog = json::parse(ReferenceFile("xid_catalog.json"));
  std::set<std::string> classes;
  for (const auto& [action, cls] : catalog["classes"].items()) classes.insert(cls.get<std::string>());
  for (const std::string& cls : classes) {
    // XID 154's class is read from its line (the driver's recovery action), one of the others.
    if (cls == "recovery_action") continue;
    // NVLink5 XIDs' class is decoded from their line (nvlink5_decode.h): application or reset.
    if (cls == "nvlink5_decode") continue;
    if (cls == "application") {
      EXPECT_EQ(FindingCodeForXidClass(cls), nullptr);
      continue;
    }
    ASSERT_NE(FindingCodeForXidClass(cls), nullptr) << cls;
  }
  EXPECT_EQ(FindingCodeForXidClass("reset")->severity, Severity::Reset);
  EXPECT_EQ(FindingCodeForXidClass("contact_support")->severity, Severity::Isolate);
}

TEST(FindingCodes, ActionsNameTheCardTheirPlaceholdersAsk) {
  const Text filled = FillAction(FindingCodeFor("remapped_rows_pending").action, {{"bus", "00000000:3B:00.0"}});
  EXPECT_EQ(filled.en, "reset the idle card: `sudo nvidia-smi -r -i 00000000:3B:00.0` (or reboot); the remap takes effect at the reset");
  const Text no_serial = FillAction(FindingCodeFor("row_remap_failed").action, {});
  EXPECT_NE(no_serial.en.find("serial unknown"), std::string::npos) << no_serial.en;
  EXPECT_NE(no_serial.ru.find("серийному номеру не известен"), std::string::npos) << no_serial.ru;
}

// The docs' row of one code, as docs/cluster-gate.md shows it.
std::string DocsRow(const FindingCode& c) {
  auto cell = [](std::string s) {
    for (size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2) s.replace(at, 1, "\\|");
    return s;
  };
  return "| " + c.code + " | `" + c.key + "` | " + SeverityKey(c.severity) + " | " + ClearsKey(c.clears) + " | " +
         cell(c.title.en) + " | " + cell(c.action.en) + " | " + cell(c.dcgm.empty() ? "—" : c.dcgm) + " |";
}

TEST(FindingCodes, TheDocsTableIsTheTable) {
  auto docs = ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/docs/cluster-gate.md");
  ASSERT_TRUE(docs.ok());
  std::istringstream lines(*docs);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);)
    if (std::regex_search(line, std::regex("^\\| LC[0-9]{3} \\|"))) rows.push_back(line);
  ASSERT_EQ(rows.size(), FindingCodes().size()) << "docs/cluster-gate.md lists another number of codes than data/finding_codes.json";
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], DocsRow(FindingCodes()[i]));
}

}  // namespace
}  // namespace labcheck::reference

// gpu.health's lines carry node-check's finding code for the same fact (health_line_codes.h), so
// the lab's report and the cluster's gate name a fault alike; lines node-check has no finding for,
// and PASS lines, carry none.
#include "gpu/health/health_line_codes.h"

#include <gtest/gtest.h>

namespace labcheck::gpu::health {
namespace {

using nlohmann::json;

HealthLine Line(std::string item, Outcome status) {
  HealthLine l;
  l.item = std::move(item);
  l.status = status;
  return l;
}

TEST(HealthLineCodes, MemoryLinesByWhatTheySay) {
  const json pending = {{"remapped_rows", {{"pending", true}, {"failed", false}}}};
  EXPECT_EQ(FindingCodeOfLine(Line("remapped_rows", Outcome::Warn), pending), "LC204");
  EXPECT_EQ(FindingCodeOfLine(Line("remapped_rows", Outcome::Fail), pending), "LC205");
  EXPECT_EQ(FindingCodeOfLine(Line("remapped_rows", Outcome::Warn), json::object()), "");  // many correctable remaps: no finding
  EXPECT_EQ(FindingCodeOfLine(Line("retired_pages", Outcome::Warn), {{"retired_pages_pending", true}}), "LC206");
  EXPECT_EQ(FindingCodeOfLine(Line("retired_pages", Outcome::Fail), json::object()), "LC207");
  EXPECT_EQ(FindingCodeOfLine(Line("remapped_rows", Outcome::Pass), pending), "");
}

TEST(HealthLineCodes, XidLinesTakeTheStrictestClass) {
  const json log = {{"xid_kernel_log", {{{"xid", 31}, {"line", ""}}, {{"xid", 48}, {"line", ""}}}}};
  EXPECT_EQ(FindingCodeOfLine(Line("xid_kernel_log", Outcome::Warn), log), "LC301");
  const json users_only = {{"xid_kernel_log", {{{"xid", 31}, {"line", ""}}}}};
  EXPECT_EQ(FindingCodeOfLine(Line("xid_kernel_log", Outcome::Warn), users_only), "");
  // 79 is node-check's "fell off the bus" (LC110), not the reboot-class XID finding (LC302).
  EXPECT_EQ(FindingCodeOfLine(Line("xid_during_run", Outcome::Fail), {{"xid_during_run", {48, 79}}}), "LC110");
  // An NVLink5 line the sheet says to ignore asks nothing; one it says to reset is a reset.
  const json ber = {{"xid_kernel_log",
                     {{{"xid", 149},
                       {"driver_version", "570.124.06"},
                       {"line", "NVRM: Xid (PCI:0018:01:00): 149, NETIR_BER_EVENT Nonfatal XC0 i0 Link 03 (0x00086226 0x00000001 0x00000000 "
                                "0x00000000 0x00000000 0x00000000)"}}}}};
  EXPECT_EQ(FindingCodeOfLine(Line("xid_kernel_log", Outcome::Warn), ber), "");
}

TEST(HealthLineCodes, SettingsAndLinks) {
  EXPECT_EQ(FindingCodeOfLine(Line("power_limit", Outcome::Warn), json::object()), "LC502");
  EXPECT_EQ(FindingCodeOfLine(Line("pcie_downtrain", Outcome::Warn), json::object()), "LC402");
  EXPECT_EQ(FindingCodeOfLine(Line("temperature", Outcome::Warn), json::object()), "");
}

TEST(HealthLineCodes, TheReportsHintLeadsWithTheCode) {
  json facts = {{"remapped_rows", {{"corrected", 0}, {"uncorrected", 1}, {"pending", true}, {"failed", false}}}};
  const CheckResult r = JudgeHealth({{"gpus", {{{"index", 0}, {"pci_bus_id", "0000:3b:00.0"}, {"facts", facts}}}}});
  bool seen = false;
  for (const json& line : r.data["lines"])
    if (line["item"] == "remapped_rows") {
      seen = true;
      EXPECT_EQ(line["code"], "LC204");
      EXPECT_EQ(line["hint"].get<std::string>().rfind("LC204: ", 0), 0u) << line["hint"];
    }
  EXPECT_TRUE(seen) << r.data.dump();
}

}  // namespace
}  // namespace labcheck::gpu::health

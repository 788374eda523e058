// Every gpu.health verdict from hand-written facts: PASS, WARN, FAIL with the hint, and N/A (never
// a failure) for what the driver does not report.
#include <gtest/gtest.h>

#include "gpu/health/health_verdicts.h"

namespace labcheck::gpu::health {
namespace {

using nlohmann::json;

// A healthy data-center card: every field present and fine.
json Healthy() {
  return {{"ecc_mode", true},
          {"ecc_uncorrected_volatile", 0},
          {"ecc_uncorrected_aggregate", 0},
          {"ecc_corrected_volatile", 0},
          {"ecc_corrected_aggregate", 4},
          {"retired_pages_single_bit", 0},
          {"retired_pages_double_bit", 0},
          {"retired_pages_pending", false},
          {"remapped_rows", {{"corrected", 0}, {"uncorrected", 0}, {"pending", false}, {"failed", false}}},
          {"xid_during_run", json::array()},
          {"xid_kernel_log", json::array()},
          {"pcie_replay_count", 0},
          {"pcie_replay_growth", 0},
          {"pcie_gen_max", 5},
          {"pcie_width_max", 16},
          {"pcie_gen_under_load", 5},
          {"pcie_width_under_load", 16},
          {"persistence_mode", true},
          {"power_limit_w", 700.0},
          {"power_default_limit_w", 700.0},
          {"compute_mode", "default"},
          {"mig_mode", {{"current", false}, {"pending", false}}},
          {"other_processes", json::array()},
          {"clock_event_reasons_idle", {"idle"}},
          {"temperature_c", 35},
          {"temperature_slowdown_c", 87}};
}

const HealthLine& Line(const std::vector<HealthLine>& lines, const std::string& item) {
  for (const HealthLine& l : lines)
    if (l.item == item) return l;
  static HealthLine missing{-1, "missing"};
  ADD_FAILURE() << "no line " << item;
  return missing;
}

TEST(HealthVerdicts, AHealthyCardPassesEveryLine) {
  const std::vector<HealthLine> lines = JudgeGpu(0, Healthy());
  EXPECT_GE(lines.size(), 15u);
  for (const HealthLine& l : lines) {
    EXPECT_EQ(l.status, Outcome::Pass) << l.item << ": " << l.value.en;
    EXPECT_FALSE(l.na) << l.item;
  }
}

struct Case {
  const char* name;
  json change;       // merged into Healthy()
  const char* item;  // the line that must change
  Outcome status;
  const char* hint_part;  // in the English hint
};

class OneFault : public ::testing::TestWithParam<Case> {};

TEST_P(OneFault, YieldsItsVerdictAndHint) {
  const Case& c = GetParam();
  json facts = Healthy();
  facts.merge_patch(c.change);
  const std::vector<HealthLine> lines = JudgeGpu(3, facts, "0000:3b:00.0");
  const HealthLine& line = Line(lines, c.item);
  // nvidia-smi counts cards in bus order, not CUDA's: a hint names the card by its bus id only.
  EXPECT_EQ(line.hint.en.find("-i 3"), std::string::npos) << line.hint.en;
  EXPECT_EQ(line.status, c.status) << line.value.en;
  EXPECT_NE(line.hint.en.find(c.hint_part), std::string::npos) << line.hint.en;
  for (const HealthLine& other : lines) {
    if (other.item != c.item) {
      EXPECT_EQ(other.status, Outcome::Pass) << other.item;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, OneFault,
    ::testing::Values(
        Case{"EccUncorrectedNow", {{"ecc_uncorrected_volatile", 2}, {"ecc_uncorrected_aggregate", 2}}, "ecc_uncorrected", Outcome::Fail, "RMA"},
        Case{"EccUncorrectedInThePast", {{"ecc_uncorrected_aggregate", 1}}, "ecc_uncorrected", Outcome::Warn, "nvidia-smi -q -d ECC"},
        Case{"RetiredPagesPending", {{"retired_pages_double_bit", 1}, {"retired_pages_pending", true}}, "retired_pages", Outcome::Warn,
             "nvidia-smi -r -i 00000000:3B:00.0"},
        Case{"RetiredPagesAtTheLimit", {{"retired_pages_single_bit", 40}, {"retired_pages_double_bit", 21}}, "retired_pages",
             Outcome::Fail, "RMA"},
        Case{"RemapPending", {{"remapped_rows", {{"pending", true}}}}, "remapped_rows", Outcome::Warn, "nvidia-smi -r -i 00000000:3B:00.0"},
        Case{"RemapFailed", {{"remapped_rows", {{"failed", true}}}}, "remapped_rows", Outcome::Fail, "RMA"},
        Case{"RemapUncorrectable", {{"remapped_rows", {{"uncorrected", 3}}}}, "remapped_rows", Outcome::Warn, "ROW_REMAPPER"},
        Case{"HardwareXidDuringRun", {{"xid_during_run", {79}}}, "xid_during_run", Outcome::Fail, "xid-errors"},
        Case{"ApplicationXidDuringRun", {{"xid_during_run", {13}}}, "xid_during_run", Outcome::Warn, "xid-errors"},
        Case{"XidInKernelLog", {{"xid_kernel_log", {{{"pci", "0000:3b:00"}, {"xid", 48}, {"line", "NVRM: Xid ..."}}}}}, "xid_kernel_log",
             Outcome::Warn, "xid-errors"},
        Case{"ReplayCounterGrows", {{"pcie_replay_count", 40}, {"pcie_replay_growth", 25}}, "pcie_replay", Outcome::Warn, "riser"},
        Case{"Downtrained", {{"pcie_gen_under_load", 3}}, "pcie_downtrain", Outcome::Warn, "PCIe"},
        Case{"NarrowLink", {{"pcie_width_under_load", 8}}, "pcie_downtrain", Outcome::Warn, "PCIe"},
        Case{"PowerLimitBelowDefault", {{"power_limit_w", 450.0}}, "power_limit", Outcome::Warn, "sudo nvidia-smi -i 00000000:3B:00.0 -pl 700"},
        Case{"ExclusiveProcess", {{"compute_mode", "exclusive_process"}}, "compute_mode", Outcome::Warn, "-c DEFAULT"},
        Case{"Prohibited", {{"compute_mode", "prohibited"}}, "compute_mode", Outcome::Fail, "-c DEFAULT"},
        Case{"MigOn", {{"mig_mode", {{"current", true}, {"pending", true}}}}, "mig_mode", Outcome::Warn, "-mig 0"},
        Case{"AnotherProcessHolds20GiB", {{"other_processes", {{{"pid", 4242}, {"used_gib", 20.0}, {"name", "python3"}}}}},
             "other_processes", Outcome::Warn, "nvidia-smi"},
        Case{"SlowdownAtIdle", {{"clock_event_reasons_idle", {"idle", "hw_slowdown"}}}, "clock_events_idle", Outcome::Warn,
             "PERFORMANCE"},
        Case{"HotAtIdle", {{"temperature_c", 80}}, "temperature", Outcome::Warn, "nvidia-smi -i 00000000:3B:00.0 -pl"}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(HealthVerdicts, OtherProcessValueNamesPidNameAndAmount) {
  json facts = Healthy();
  facts["other_processes"] = {{{"pid", 4242}, {"used_gib", 20.0}, {"name", "python3"}}};
  const std::vector<HealthLine> lines = JudgeGpu(0, facts);
  const HealthLine& line = Line(lines, "other_processes");
  EXPECT_NE(line.value.en.find("4242 python3 20.0 GiB"), std::string::npos) << line.value.en;
  facts["other_processes"] = {{{"pid", 77}, {"used_gib", 0.2}, {"name", nullptr}}};  // a compositor's few MiB
  EXPECT_EQ(Line(JudgeGpu(0, facts), "other_processes").status, Outcome::Pass);
}

// Issue 42: a host pid seen from a container is not given a name, and the hint says how to get it.
TEST(HealthVerdicts, AHostPidSeenFromAContainerSaysWhereToNameIt) {
  json facts = Healthy();
  facts["other_processes"] = {{{"pid", 4242}, {"used_gib", 20.0}, {"name", nullptr}, {"host_pid", true}}};
  const std::vector<HealthLine> lines = JudgeGpu(0, facts);
  const HealthLine& line = Line(lines, "other_processes");
  EXPECT_EQ(line.status, Outcome::Warn);
  EXPECT_NE(line.value.en.find("4242 (host PID) 20.0 GiB"), std::string::npos) << line.value.en;
  EXPECT_NE(line.value.ru.find("4242 (PID хоста) 20.0 GiB"), std::string::npos) << line.value.ru;
  EXPECT_NE(line.hint.en.find("--pid=host"), std::string::npos) << line.hint.en;
}

TEST(HealthVerdicts, UnsupportedFieldsAreNotAvailableNeverFailures) {
  json facts = Healthy();
  const json na = {{"na", "not supported by this GPU or driver (NVML_ERROR_NOT_SUPPORTED)"}};
  for (const char* key : {"ecc_mode", "ecc_uncorrected_volatile", "ecc_corrected_volatile", "retired_pages_double_bit",
                          "remapped_rows", "xid_during_run", "xid_kernel_log", "pcie_replay_count", "pcie_gen_under_load",
                          "persistence_mode", "power_limit_w", "compute_mode", "mig_mode", "other_processes",
                          "clock_event_reasons_idle", "temperature_c"})
    facts[key] = na;
  const std::vector<HealthLine> lines = JudgeGpu(0, facts);
  int na_lines = 0;
  for (const HealthLine& l : lines) {
    EXPECT_EQ(l.status, Outcome::Pass) << l.item;
    na_lines += l.na;
    if (l.na) {
      EXPECT_NE(l.value.en.find("NOT_SUPPORTED"), std::string::npos) << l.item;
    }
  }
  EXPECT_GE(na_lines, 14);
  CheckResult result = JudgeHealth({{"gpus", {{{"index", 0}, {"facts", facts}}}}});
  EXPECT_EQ(result.outcome, Outcome::Pass);
}

TEST(HealthVerdicts, CheckTakesTheWorstLineAndMatchesKernelXidsByBusId) {
  json a = Healthy(), b = Healthy();
  a.erase("xid_kernel_log");
  b.erase("xid_kernel_log");
  b["remapped_rows"]["failed"] = true;
  a["power_limit_w"] = 300.0;
  const json payload = {{"gpus", {{{"index", 0}, {"pci_bus_id", "0000:3b:00.0"}, {"facts", a}},
                                  {{"index", 1}, {"pci_bus_id", "0000:5e:00.0"}, {"facts", b}}}},
                        {"xid_kernel_log", {{{"pci", "0000:3b:00"}, {"xid", 79}, {"line", "NVRM: Xid (PCI:0000:3b:00): 79"}}}}};
  CheckResult r = JudgeHealth(payload);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("GPU1"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.hint.en.find("RMA"), std::string::npos);
  int kernel_warns = 0;
  for (const json& line : r.data["lines"])
    if (line["item"] == "xid_kernel_log" && line["status"] == "WARN") {
      EXPECT_EQ(line["gpu"], 0);
      ++kernel_warns;
    }
  EXPECT_EQ(kernel_warns, 1);
  EXPECT_EQ(r.data["gpus"].size(), 2u);
}

TEST(HealthVerdicts, TheTableSaysALineOnceForTheCardsThatShareIt) {
  // Four cards, the same but GPU 2's power limit: each item is one row for "all", and the power
  // limit is two rows side by side, "0, 1, 3" and "2". The JSON keeps every card's line.
  json gpus = json::array();
  for (int i = 0; i < 4; ++i) {
    json facts = Healthy();
    if (i == 2) facts["power_limit_w"] = 450.0;
    gpus.push_back({{"index", i}, {"facts", facts}});
  }
  CheckResult r = JudgeHealth({{"gpus", gpus}});
  ASSERT_EQ(r.tables.size(), 1u);
  const Table& t = r.tables[0];
  const size_t per_card = JudgeGpu(0, Healthy()).size();
  EXPECT_EQ(t.rows.size(), per_card + 1);
  EXPECT_EQ(r.data["lines"].size(), 4 * per_card);
  int power_rows = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string gpu = t.rows[i][0].en;
    if (t.rows[i][1].en == Line(JudgeGpu(0, Healthy()), "power_limit").label.en) {
      ++power_rows;
      EXPECT_TRUE(gpu == "0, 1, 3" || gpu == "2") << gpu;
      if (gpu == "0, 1, 3") {
        EXPECT_EQ(t.rows[i + 1][0].en, "2");  // the odd card right below
      }
    } else {
      EXPECT_EQ(gpu, "all") << t.rows[i][1].en;
    }
  }
  EXPECT_EQ(power_rows, 2);
}

TEST(HealthVerdicts, UnreadableKernelLogIsNotAvailableWithWhy) {
  json a = Healthy();
  a.erase("xid_kernel_log");
  CheckResult r = JudgeHealth({{"gpus", {{{"index", 0}, {"facts", a}}}},
                               {"xid_kernel_log", {{"na", "/dev/kmsg is readable only by root here (kernel.dmesg_restrict=1)"}}}});
  EXPECT_EQ(r.outcome, Outcome::Pass);
  bool found = false;
  for (const json& line : r.data["lines"])
    if (line["item"] == "xid_kernel_log") {
      EXPECT_EQ(line["status"], "N/A");
      EXPECT_NE(line["value"].get<std::string>().find("dmesg_restrict"), std::string::npos);
      found = true;
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace labcheck::gpu::health

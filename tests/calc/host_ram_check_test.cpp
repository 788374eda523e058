// The host RAM an offloaded run needs, set beside what the last report measured (host_ram_check.h).
#include <gtest/gtest.h>

#include <fstream>

#include "calc/byte_units.h"
#include "calc/host_ram_check.h"
#include "calc_cli.h"

namespace labcheck::calc {
namespace {

TrainingMemory Offloaded(double gib_needed) {
  TrainingMemory m;
  m.cpu_bytes = gib_needed * kBytesPerGiB / 2;
  m.host_gpus = 2;
  m.host_ram_bytes = gib_needed * kBytesPerGiB;
  m.host_ram_planned_bytes = 1.5 * m.host_ram_bytes;
  return m;
}

MachineReport WithRam(double gib) {
  MachineReport r;
  r.path = "journal/lab-report.json";
  r.ram_total_gib = gib;
  return r;
}

TEST(HostRamCheckTest, ComparesTheStateAndItsMarginWithTheMeasuredRam) {
  const TrainingMemory m = Offloaded(40);
  const MachineReport small = WithRam(32), middle = WithRam(50), large = WithRam(125.7);
  EXPECT_NE(HostRamVerdict(m, &small)->In(Lang::En).find("less than the offloaded state needs"), std::string::npos);
  EXPECT_NE(HostRamVerdict(m, &middle)->In(Lang::En).find("the 1.5x margin"), std::string::npos);
  EXPECT_NE(HostRamVerdict(m, &large)->In(Lang::En).find("enough, with the 1.5x margin"), std::string::npos);
  const nlohmann::json j = HostRamReportJson(m, &middle);
  EXPECT_TRUE(j.at("fits").get<bool>());
  EXPECT_FALSE(j.at("fits_with_margin").get<bool>());
  EXPECT_DOUBLE_EQ(j.at("measured_total").at("bytes").get<double>(), 50 * kBytesPerGiB);
}

TEST(HostRamCheckTest, SaysWhenNoRamWasMeasuredAndStaysQuietWithoutOffload) {
  const MachineReport none;
  EXPECT_NE(HostRamVerdict(Offloaded(40), nullptr)->In(Lang::En).find("not in the report"), std::string::npos);
  EXPECT_NE(HostRamVerdict(Offloaded(40), &none)->In(Lang::En).find("run lab_check"), std::string::npos);
  EXPECT_TRUE(HostRamReportJson(Offloaded(40), nullptr).at("fits").is_null());
  EXPECT_FALSE(HostRamVerdict(TrainingMemory{}, nullptr).has_value());
  EXPECT_TRUE(HostRamReportJson(TrainingMemory{}, nullptr).is_null());
}

TEST(HostRamCheckTest, VramReadsTheRamOfTheLastReport) {
  // env.system's memory.total_gib, as lab_check writes it (docs/report-schema.md).
  const std::string path = ::testing::TempDir() + "/calc-host-ram-report.json";
  std::ofstream(path) << R"({"checks": [{"id": "env.system", "data": {"memory": {"total_gib": 62.5, "available_gib": 60.1}}}]})";
  const testing::CliRun run = testing::RunCalc({"vram", "llama-3.1-70b", "--method", "qlora", "--gpus", "2", "--sharding", "fsdp",
                                                "--offload", "params", "--json"}, Lang::En, {}, path);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json machine = nlohmann::json::parse(run.out).at("memory").at("host_ram").at("machine");
  EXPECT_EQ(machine.at("report"), path);
  EXPECT_DOUBLE_EQ(machine.at("measured_total").at("gib").get<double>(), 62.5);
  const testing::CliRun text = testing::RunCalc({"vram", "llama-3.1-70b", "--method", "qlora", "--gpus", "2", "--sharding", "fsdp",
                                                 "--offload", "params"}, Lang::En, {}, path);
  EXPECT_NE(text.out.find("measured 62.50 GiB"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace labcheck::calc

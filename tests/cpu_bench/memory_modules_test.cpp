#include "cpu_bench/memory_modules.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "sample_files.h"

namespace labcheck::cpu_bench {
namespace {

using testing::HexSample;

TEST(ParseMemoryModule, ServerRdimmWithExtendedSizeAndSlowerConfiguredSpeed) {
  auto module = ParseMemoryModule(HexSample("type17_ddr4_rdimm_epyc_server.hex"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_TRUE(module->installed);
  EXPECT_EQ(module->size_bytes, uint64_t{32} << 30);  // size 7FFFh: the extended field counts
  EXPECT_EQ(module->data_width_bits, 64);             // 72 total: 8 of them are ECC
  EXPECT_EQ(module->type, "DDR4");
  EXPECT_EQ(module->rated_mts, 3200u);
  EXPECT_EQ(module->configured_mts, 2933u);
  EXPECT_EQ(module->effective_mts(), 2933u);  // what it runs at, not what it is rated for
  EXPECT_EQ(module->device_locator, "CPU1_DIMM_Q1");
  EXPECT_EQ(module->bank_locator, "P1 CHANNEL Q");
  EXPECT_EQ(module->array_handle, 0x0007);
}

TEST(ParseMemoryModule, LaptopSodimm) {
  auto module = ParseMemoryModule(HexSample("type17_ddr4_sodimm_laptop.hex"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_EQ(module->size_bytes, uint64_t{8} << 30);
  EXPECT_EQ(module->effective_mts(), 2667u);
  EXPECT_EQ(module->device_locator, "ChannelA-DIMM0");
}

TEST(ParseMemoryModule, EmptySlotIsNotInstalledAndHasNoWidth) {
  auto module = ParseMemoryModule(HexSample("type17_empty_slot.hex"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_FALSE(module->installed);
  EXPECT_EQ(module->data_width_bits, 0);  // FFFFh = unknown
  EXPECT_EQ(module->type, "type 0x02");
  EXPECT_EQ(module->device_locator, "DIMM_B2");
}

TEST(ParseMemoryModule, OldRecordWithoutConfiguredSpeedUsesTheRatedOne) {
  auto module = ParseMemoryModule(HexSample("type17_ddr3_smbios23.hex"));
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_EQ(module->type, "DDR3");
  EXPECT_EQ(module->configured_mts, 0u);
  EXPECT_EQ(module->effective_mts(), 1600u);
  EXPECT_EQ(module->size_bytes, uint64_t{4} << 30);
}

TEST(ParseMemoryModule, SpeedsOfFFFFhAreInTheExtendedFields) {
  std::string raw = HexSample("type17_ddr4_rdimm_epyc_server.hex");
  // Grow the record to SMBIOS 3.3 (92 bytes) and put 70000 MT/s in the extended fields.
  std::string strings = raw.substr(0x54);
  raw.resize(0x54);
  raw[1] = 0x5C;
  auto put32 = [&](uint32_t v) { for (int i = 0; i < 4; ++i) raw.push_back(char(v >> (8 * i) & 0xFF)); };
  put32(70000);
  put32(68000);
  raw[0x15] = raw[0x16] = raw[0x20] = raw[0x21] = char(0xFF);
  raw += strings;
  auto module = ParseMemoryModule(raw);
  ASSERT_TRUE(module.ok()) << module.status().message();
  EXPECT_EQ(module->rated_mts, 70000u);
  EXPECT_EQ(module->configured_mts, 68000u);
  EXPECT_EQ(module->device_locator, "CPU1_DIMM_Q1");
}

TEST(ParseMemoryModule, RejectsOtherTypesAndTruncatedRecords) {
  EXPECT_FALSE(ParseMemoryModule(std::string("\x10\x17", 2)).ok());
  std::string raw = HexSample("type17_ddr4_sodimm_laptop.hex");
  EXPECT_FALSE(ParseMemoryModule(raw.substr(0, 0x30)).ok());
}

MemoryModule Module(std::string device, std::string bank, uint32_t mts = 3200, int width = 64,
                    std::string type = "DDR4") {
  MemoryModule m;
  m.installed = true;
  m.size_bytes = uint64_t{16} << 30;
  m.data_width_bits = width;
  m.configured_mts = mts;
  m.type = std::move(type);
  m.device_locator = std::move(device);
  m.bank_locator = std::move(bank);
  return m;
}

TEST(ChannelOf, NamesTheChannelFromEitherLocator) {
  EXPECT_EQ(ChannelOf(Module("CPU1_DIMM_Q1", "P1 CHANNEL Q")), "array 0000: p1 channel q");
  EXPECT_EQ(ChannelOf(Module("ChannelA-DIMM0", "BANK 0")), "array 0000: channela");
  EXPECT_EQ(ChannelOf(Module("Controller0-ChannelA-DIMM0", "BANK 0")), "array 0000: controller0-channela");
  EXPECT_EQ(ChannelOf(Module("DIMM_A2", "P0_Node0_Channel0_Dimm1")), "array 0000: p0_node0_channel0");
  EXPECT_EQ(ChannelOf(Module("DIMM_B1", "BANK 2")), "array 0000: dimm_b");
  EXPECT_EQ(ChannelOf(Module("P1-DIMMA2", "")), "array 0000: p1-dimma");
  EXPECT_FALSE(ChannelOf(Module("A1", "Not Specified")).has_value());  // Dell: A1, A2 differ
  EXPECT_FALSE(ChannelOf(Module("DIMM 0", "BANK 0")).has_value());
}

TEST(TheoreticalMemoryPeak, EightChannelsOfDdr4_3200GiveTheLabPagesFigure) {
  // The lab page: "128 ГБ DDR4-3200, 8 каналов — ~200 ГБ/с теоретической".
  std::vector<MemoryModule> modules;
  for (char c = 'A'; c <= 'H'; ++c) modules.push_back(Module(std::string("DIMM_") + c + "1", std::string("P0 CHANNEL ") + c));
  auto peak = TheoreticalMemoryPeak(modules);
  ASSERT_TRUE(peak.ok()) << peak.status().message();
  EXPECT_NEAR(peak->gbps, 204.8, 1e-9);
  EXPECT_EQ(peak->channels, 8);
  EXPECT_FALSE(peak->channels_assumed);
  EXPECT_EQ(peak->label.en, "8 channels × DDR4-3200 × 8 bytes");
  EXPECT_EQ(peak->label.ru, "8 каналов × DDR4-3200 × 8 байт");
}

TEST(TheoreticalMemoryPeak, TwoModulesInOneChannelShareIt) {
  std::vector<MemoryModule> modules = {Module("DIMM_A1", "BANK 0"), Module("DIMM_A2", "BANK 1"),
                                       Module("DIMM_B1", "BANK 2"), Module("DIMM_B2", "BANK 3")};
  auto peak = TheoreticalMemoryPeak(modules);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->channels, 2);
  EXPECT_EQ(peak->modules, 4);
  EXPECT_NEAR(peak->gbps, 51.2, 1e-9);
}

TEST(TheoreticalMemoryPeak, UnnamedChannelsAreAssumedOnePerModuleAndSaidSo) {
  std::vector<MemoryModule> modules = {Module("A1", ""), Module("A2", ""), Module("A3", "")};
  auto peak = TheoreticalMemoryPeak(modules);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->channels, 3);
  EXPECT_TRUE(peak->channels_assumed);
  EXPECT_NE(peak->label.en.find("one module per channel"), std::string::npos);
}

TEST(TheoreticalMemoryPeak, SkipsEmptySlotsAndSumsMixedChannels) {
  MemoryModule empty = Module("ChannelB-DIMM0", "BANK 2");
  empty.installed = false;
  std::vector<MemoryModule> modules = {Module("ChannelA-DIMM0", "BANK 0", 2667), empty,
                                       Module("ChannelC-DIMM0", "BANK 4", 3200, 32, "LPDDR5")};
  auto peak = TheoreticalMemoryPeak(modules);
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->channels, 2);
  EXPECT_NEAR(peak->gbps, 2667 * 8e-3 + 3200 * 4e-3, 1e-9);
  EXPECT_NE(peak->label.en.find("sum over 2 channels"), std::string::npos);
}

TEST(TheoreticalMemoryPeak, LabelsNarrowBusesInRussianToo) {
  auto peak = TheoreticalMemoryPeak({Module("ChannelA-DIMM0", "", 6400, 32, "LPDDR5"),
                                     Module("ChannelB-DIMM0", "", 6400, 32, "LPDDR5")});
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->label.ru, "2 канала × LPDDR5-6400 × 4 байта");
}

TEST(TheoreticalMemoryPeak, FailsWithoutAnyUsableModule) {
  MemoryModule unknown_speed = Module("DIMM_A1", "");
  unknown_speed.configured_mts = unknown_speed.rated_mts = 0;
  EXPECT_FALSE(TheoreticalMemoryPeak({unknown_speed}).ok());
  EXPECT_FALSE(TheoreticalMemoryPeak({}).ok());
}

TEST(ReadMemoryModules, ReadsOrSaysWhyNotInBothLanguages) {
  ModuleScan scan = ReadMemoryModules();
  if (!scan.modules.empty()) {
    EXPECT_TRUE(scan.why_none.empty());
    return;
  }
  EXPECT_FALSE(scan.why_none.ru.empty());
  EXPECT_FALSE(scan.why_none.en.empty());
  if (access("/sys/firmware/dmi/entries", F_OK) != 0) {
    EXPECT_NE(scan.why_none.en.find("no SMBIOS tables"), std::string::npos) << scan.why_none.en;
  }
}

}  // namespace
}  // namespace labcheck::cpu_bench

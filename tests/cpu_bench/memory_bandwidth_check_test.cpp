#include "cpu_bench/memory_bandwidth_check.h"

#include <gtest/gtest.h>

namespace labcheck::cpu_bench {
namespace {

// 10^9 elements: copy moves 16 GB and triad 24 GB per pass, so seconds turn into GB/s simply.
MemoryBandwidthInputs StreamInputs(std::vector<double> copy_s, std::vector<double> triad_s) {
  MemoryBandwidthInputs in;
  in.run.elements = 1'000'000'000;
  in.run.threads = 8;
  in.run.copy_seconds = std::move(copy_s);
  in.run.triad_seconds = std::move(triad_s);
  in.plan.array_bytes = in.run.elements * 8;
  in.llc_bytes = uint64_t{32} << 20;
  return in;
}

MemoryPeak Peak(double gbps) {
  MemoryPeak peak;
  peak.gbps = gbps;
  peak.channels = 2;
  peak.modules = 2;
  peak.label = T("2 канала × DDR4-3200 × 8 байт", "2 channels × DDR4-3200 × 8 bytes");
  return peak;
}

TEST(AssessMemoryBandwidth, MediansInGigabytesPerSecondWithKeysAndReference) {
  MemoryBandwidthInputs in = StreamInputs({1.0, 0.5, 2.0}, {1.0, 1.5, 1.2});
  in.peak = Peak(51.2);
  CheckResult result = AssessMemoryBandwidth(in);
  ASSERT_EQ(result.measurements.size(), 2u);
  const Measurement* copy = result.Find("cpu.mem_copy_gbps");
  const Measurement* triad = result.Find("cpu.mem_triad_gbps");
  ASSERT_TRUE(copy && triad);
  EXPECT_DOUBLE_EQ(copy->value, 16.0);   // median of 16, 32, 8
  EXPECT_DOUBLE_EQ(triad->value, 20.0);  // median of 24, 16, 20
  EXPECT_EQ(copy->unit, "GB/s");
  EXPECT_EQ(copy->reference, 51.2);
  EXPECT_EQ(copy->reference_label.en, "2 channels × DDR4-3200 × 8 bytes");
  EXPECT_NE(triad->method.en.find("2 reads + 1 write"), std::string::npos);
  EXPECT_NE(triad->method.ru.find("24 байта на элемент, 8 потоков"), std::string::npos) << triad->method.ru;
  EXPECT_NE(triad->method.ru.find("медиана по 3 проходам"), std::string::npos) << triad->method.ru;
  EXPECT_EQ(result.outcome, Outcome::Warn);  // triad 20 < 25.6
  EXPECT_NE(result.reason.en.find("under half"), std::string::npos);
  EXPECT_EQ(result.data["copy_gbps"].size(), 3u);
  EXPECT_DOUBLE_EQ(result.data["theoretical"]["gbps"].get<double>(), 51.2);
  EXPECT_EQ(result.tables.at(0).rows.at(1).at(5).en, "39%");
}

TEST(AssessMemoryBandwidth, HalfOfTheoreticalOrMorePasses) {
  MemoryBandwidthInputs in = StreamInputs({1.0}, {24.0 / 25.6});  // triad exactly 25.6 GB/s
  in.peak = Peak(51.2);
  EXPECT_EQ(AssessMemoryBandwidth(in).outcome, Outcome::Pass);
}

TEST(AssessMemoryBandwidth, WithoutTheoreticalFigureSaysWhyAndPasses) {
  MemoryBandwidthInputs in = StreamInputs({1.0}, {1.0});
  in.peak_unavailable = T("таблиц SMBIOS нет", "no SMBIOS tables");
  in.peak_detail = "/sys/firmware/dmi/entries: No such file or directory";
  in.virtualized = true;
  CheckResult result = AssessMemoryBandwidth(in);
  EXPECT_EQ(result.outcome, Outcome::Pass);
  EXPECT_FALSE(result.Find("cpu.mem_triad_gbps")->reference.has_value());
  EXPECT_EQ(result.data["theoretical"]["error"], "no SMBIOS tables");
  EXPECT_EQ(result.data["theoretical"]["detail"], in.peak_detail);
  bool said_why = false, said_vm = false;
  for (const Text& note : result.tables.at(0).notes) {
    said_why |= note.en == "The theoretical figure could not be read: no SMBIOS tables." &&
                note.ru == "Теоретическую цифру получить не удалось: таблиц SMBIOS нет.";
    said_vm |= note.en.find("virtual machine") != std::string::npos;
  }
  EXPECT_TRUE(said_why);
  EXPECT_TRUE(said_vm);
  EXPECT_EQ(result.tables.at(0).rows.at(0).at(5).en, "—");
}

TEST(AssessMemoryBandwidth, SaysHowBytesAreCounted) {
  CheckResult result = AssessMemoryBandwidth(StreamInputs({1.0}, {1.0}));
  EXPECT_NE(result.Find("cpu.mem_copy_gbps")->method.en.find("bytes read + bytes written"), std::string::npos);
  EXPECT_NE(result.data["bytes_counted"].get<std::string>().find("write-allocate"), std::string::npos);
}

// The channels/XMP hint answers a low triad on an idle machine; a busy one's note says why.
TEST(AssessMemoryBandwidth, TheModulesHintOnlyOnAnIdleMachine) {
  MemoryBandwidthInputs in = StreamInputs({1.0}, {1.0});
  in.peak = Peak(512);
  EXPECT_NE(AssessMemoryBandwidth(in).hint.en.find("XMP/EXPO"), std::string::npos);
  in.load = {8.5, 2};
  const CheckResult busy = AssessMemoryBandwidth(in);
  EXPECT_EQ(busy.outcome, Outcome::Warn);
  EXPECT_EQ(busy.hint.en.find("XMP"), std::string::npos) << busy.hint.en;
}

TEST(AssessMemoryBandwidth, BusyMachineWarnsEvenWithoutTheoreticalFigure) {
  MemoryBandwidthInputs in = StreamInputs({1.0}, {1.0});
  in.load = {8.5, 2};
  CheckResult result = AssessMemoryBandwidth(in);
  EXPECT_EQ(result.outcome, Outcome::Warn);
  EXPECT_NE(result.reason.en.find("busy"), std::string::npos);
  EXPECT_DOUBLE_EQ(result.data["load_1min"].get<double>(), 8.5);
  in.load = {0.9, 2};
  EXPECT_EQ(AssessMemoryBandwidth(in).outcome, Outcome::Pass);
}

}  // namespace
}  // namespace labcheck::cpu_bench

#include "cpu_bench/flops_peak.h"

#include <gtest/gtest.h>

#include "sample_files.h"

namespace labcheck::cpu_bench {
namespace {

env::CpuInfo Cpu(std::string vendor, int family, int model, std::set<std::string> flags) {
  env::CpuInfo cpu;
  cpu.vendor = std::move(vendor);
  cpu.family = family;
  cpu.model_number = model;
  cpu.flags = std::move(flags);
  cpu.cores = 8;
  cpu.threads = 16;
  cpu.current_mhz = 3000;
  return cpu;
}

TEST(DetectVectorIsa, FlopPerCycleFollowsTheWidestFullRateVectors) {
  EXPECT_EQ(DetectVectorIsa(Cpu("GenuineIntel", 6, 85, {"sse2", "avx", "avx2", "fma", "avx512f"}))->Fp32FlopPerCycle(), 64);
  EXPECT_EQ(DetectVectorIsa(Cpu("AuthenticAMD", 26, 2, {"sse2", "avx2", "fma", "avx512f"}))->Fp32FlopPerCycle(), 64);
  EXPECT_EQ(DetectVectorIsa(Cpu("GenuineIntel", 6, 60, {"sse2", "avx", "avx2", "fma"}))->Fp32FlopPerCycle(), 32);
  EXPECT_EQ(DetectVectorIsa(Cpu("GenuineIntel", 6, 42, {"sse2", "avx"}))->Fp32FlopPerCycle(), 16);
  EXPECT_EQ(DetectVectorIsa(Cpu("GenuineIntel", 6, 26, {"sse2"}))->Fp32FlopPerCycle(), 8);
}

TEST(DetectVectorIsa, Zen4RunsAvx512AtHalfWidth) {
  auto isa = DetectVectorIsa(Cpu("AuthenticAMD", 25, 0x61, {"sse2", "avx2", "fma", "avx512f"}));
  ASSERT_TRUE(isa);
  EXPECT_EQ(isa->name, "AVX-512");
  EXPECT_EQ(isa->width_bits, 256);
  EXPECT_EQ(isa->Fp32FlopPerCycle(), 32);
  EXPECT_FALSE(isa->datapath_note.empty());
}

TEST(DetectVectorIsa, ZenOneSplitsAvx2ButZenTwoDoesNot) {
  EXPECT_EQ(DetectVectorIsa(Cpu("AuthenticAMD", 23, 1, {"sse2", "avx2", "fma"}))->width_bits, 128);
  EXPECT_EQ(DetectVectorIsa(Cpu("AuthenticAMD", 23, 0x31, {"sse2", "avx2", "fma"}))->width_bits, 256);
}

TEST(DetectVectorIsa, NothingForArm) {
  auto arm = env::ParseCpuInfo(testing::CpuInfoSample("cpuinfo_arm64_neoverse_n1.txt"));
  ASSERT_TRUE(arm.ok());
  EXPECT_FALSE(DetectVectorIsa(*arm).has_value());
  EXPECT_FALSE(TheoreticalFp32Peak(*arm).ok());
  EXPECT_NE(WhyNoFp32Peak(*arm).en.find("x86 only"), std::string::npos);
}

TEST(TheoreticalFp32Peak, DevelopmentVmFromItsCpuinfo) {
  auto cpu = env::ParseCpuInfo(testing::CpuInfoSample("cpuinfo_epyc_zen5_vm_2vcpu.txt"));
  ASSERT_TRUE(cpu.ok());
  auto peak = TheoreticalFp32Peak(*cpu);
  ASSERT_TRUE(peak.ok()) << peak.status().message();
  EXPECT_NEAR(peak->gflops, 2 * 2.096001 * 64, 1e-6);  // 2 cores × 2.096 GHz × 16 lanes × 2 × 2
  EXPECT_FALSE(peak->max_clock);
  EXPECT_TRUE(peak->lower_bound());  // "AMD EPYC" names no model: no rated clock to use
  EXPECT_EQ(peak->label.en,
            "2 cores × 2.10 GHz (current, from /proc/cpuinfo: a lower bound) × 64 FLOP/cycle (AVX-512 FMA, 2 pipes)");
  EXPECT_EQ(peak->label.ru,
            "2 ядра × 2.10 ГГц (текущая из /proc/cpuinfo — нижняя граница) × 64 FLOP/такт (AVX-512 FMA, 2 блока)");
}

TEST(TheoreticalFp32Peak, PrefersTheMaximumClockAndCountsPhysicalCores) {
  auto cpu = env::ParseCpuInfo(testing::CpuInfoSample("cpuinfo_xeon_2socket_ht_trimmed.txt"));
  ASSERT_TRUE(cpu.ok());
  cpu.value().max_mhz = 4000;
  auto peak = TheoreticalFp32Peak(*cpu);
  ASSERT_TRUE(peak.ok());
  EXPECT_TRUE(peak->max_clock);
  EXPECT_EQ(peak->cores, 4);  // 8 threads, 4 cores: Hyper-Threading adds no FMA units
  EXPECT_NEAR(peak->gflops, 4 * 4.0 * 64, 1e-9);
}

TEST(TheoreticalFp32Peak, NeedsAClock) {
  env::CpuInfo cpu = Cpu("GenuineIntel", 6, 60, {"sse2", "avx2", "fma"});
  cpu.current_mhz.reset();
  auto peak = TheoreticalFp32Peak(cpu);
  ASSERT_FALSE(peak.ok());
  EXPECT_NE(peak.status().message().find("clock"), std::string::npos);
  EXPECT_NE(WhyNoFp32Peak(cpu).ru.find("частота"), std::string::npos);
}

TEST(OpenBlasKernelWidthBits, KnowsTheKernelFamilies) {
  EXPECT_EQ(OpenBlasKernelWidthBits("Haswell"), 256);
  EXPECT_EQ(OpenBlasKernelWidthBits("Zen"), 256);
  EXPECT_EQ(OpenBlasKernelWidthBits("SkylakeX"), 512);
  EXPECT_EQ(OpenBlasKernelWidthBits("Prescott"), 128);
  EXPECT_EQ(OpenBlasKernelWidthBits("NeoverseN1"), 0);
}

}  // namespace
}  // namespace labcheck::cpu_bench

#include "env/cpu_info.h"

#include <gtest/gtest.h>

#include "test_data.h"

namespace labcheck::env {
namespace {

using testing::Sample;

TEST(ParseCpuInfo, EpycVmCountsEachVcpuAsACore) {
  auto info = ParseCpuInfo(Sample("cpuinfo_epyc_zen5_vm_2vcpu.txt"));
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->model, "AMD EPYC");
  EXPECT_EQ(info->vendor, "AuthenticAMD");
  EXPECT_EQ(info->family, 26);
  EXPECT_EQ(info->sockets, 1);
  EXPECT_EQ(info->cores, 2);
  EXPECT_EQ(info->threads, 2);
  EXPECT_TRUE(info->Has("avx512f"));
  EXPECT_TRUE(info->Has("fma"));
  EXPECT_TRUE(info->virtualized());
  ASSERT_TRUE(info->current_mhz.has_value());
  EXPECT_NEAR(*info->current_mhz, 2096.001, 1e-6);
}

TEST(ParseCpuInfo, TwoSocketsWithHyperThreadingCountPhysicalCores) {
  auto info = ParseCpuInfo(Sample("cpuinfo_xeon_2socket_ht_trimmed.txt"));
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->model, "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz");
  EXPECT_EQ(info->sockets, 2);
  EXPECT_EQ(info->cores, 4);  // core ids repeat across sockets: pairs, not ids, are counted
  EXPECT_EQ(info->threads, 8);
  EXPECT_FALSE(info->virtualized());
  // The highest of the per-CPU snapshots, not the first.
  EXPECT_DOUBLE_EQ(*info->current_mhz, 3700.0);
}

TEST(ParseCpuInfo, ArmWithoutTopologyFallsBackToOneCorePerCpu) {
  auto info = ParseCpuInfo(Sample("cpuinfo_arm64_neoverse_n1.txt"));
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->model, "unknown");
  EXPECT_EQ(info->threads, 4);
  EXPECT_EQ(info->cores, 4);
  EXPECT_EQ(info->sockets, 1);
  EXPECT_TRUE(info->Has("asimd"));
  EXPECT_FALSE(info->current_mhz.has_value());
  EXPECT_EQ(info->family, -1);
}

TEST(ParseCpuInfo, RejectsTextWithoutProcessors) {
  auto info = ParseCpuInfo("MemTotal: 100 kB\n");
  EXPECT_FALSE(info.ok());
}

TEST(ApplyTopology, CountsPackagesAndCoresFromSysfs) {
  CpuInfo info;
  info.sockets = 1;
  info.cores = 4;
  ApplyTopology({{0, 0}, {0, 1}, {0, 0}, {0, 1}}, info);  // 2 cores with SMT
  EXPECT_EQ(info.sockets, 1);
  EXPECT_EQ(info.cores, 2);
}

TEST(ParseIdList, ExpandsRangesAndSingles) {
  auto ids = ParseIdList("0-2,5,7-8\n");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<int>{0, 1, 2, 5, 7, 8}));
  EXPECT_EQ(ParseIdList("0")->size(), 1u);
  EXPECT_TRUE(ParseIdList("")->empty());
}

TEST(ParseIdList, RejectsMalformedLists) {
  EXPECT_FALSE(ParseIdList("3-1").ok());
  EXPECT_FALSE(ParseIdList("a-b").ok());
  EXPECT_FALSE(ParseIdList("1,,2").ok());
}

TEST(ReadCpuInfo, ReadsThisMachine) {
  auto info = ReadCpuInfo();
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_GE(info->threads, 1);
  EXPECT_GE(info->threads, info->cores);
  EXPECT_GE(info->numa_nodes, 1);
}

}  // namespace
}  // namespace labcheck::env

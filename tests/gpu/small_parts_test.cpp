// The seed's slow-link rule, the topology matrix, statistics, job arguments, PCI
// bus ids and clock event names.
#include <gtest/gtest.h>

#include "gpu/bench/stats.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/nvidia/nvml_library.h"
#include "gpu/pcie.h"
#include "gpu/topology.h"

namespace labcheck::gpu {
namespace {

TEST(Pcie, SeedsRuleTwelveGigabytesOnAGen4SlotLooksLikeGen3OrX8) {
  PcieAssessment slow = AssessPcie(12.5, 4, 16, std::nullopt, std::nullopt);
  EXPECT_TRUE(slow.slow);
  EXPECT_NE(slow.hint.en.find("BIOS"), std::string::npos);
  EXPECT_FALSE(AssessPcie(24, 4, 16, std::nullopt, std::nullopt).slow);  // the seed's 20–26 in practice
  EXPECT_FALSE(AssessPcie(12.5, 0, 0, std::nullopt, std::nullopt).slow);  // unknown link: no verdict
  PcieAssessment downtrained = AssessPcie(24, 4, 16, 4, 8);  // fast enough, but x8 under load
  EXPECT_TRUE(downtrained.slow);
  EXPECT_NE(downtrained.finding.en.find("x8"), std::string::npos);
}

TEST(Topology, MatrixAsNvidiaSmiPrintsIt) {
  TopologyInput input;
  input.count = 3;
  input.nvlinks = {{0, 4, 0}, {4, 0, 0}, {0, 0, 0}};
  input.pcie_levels = {{-1, 30, 50}, {30, -1, 40}, {50, 40, -1}};
  auto m = TopologyMatrix(input);
  EXPECT_EQ(m[0][0], "X");
  EXPECT_EQ(m[0][1], "NV4");
  EXPECT_EQ(m[0][2], "SYS");
  EXPECT_EQ(m[1][2], "NODE");
  EXPECT_TRUE(AnyNvLink(input));
  EXPECT_EQ(PcieLevelName(10), "PIX");
  EXPECT_EQ(PcieLevelName(20), "PXB");
  EXPECT_EQ(PcieLevelName(30), "PHB");
  EXPECT_EQ(PcieLevelName(-1), "?");
}

TEST(Stats, MedianAndSpread) {
  Sampled s = Summarise({5, 1, 3, 100});
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.median, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(Summarise({2, 9, 4}).median, 4);
  EXPECT_EQ(Summarise({}).count, 0);
  EXPECT_DOUBLE_EQ(SpreadFraction({100, 90}), 0.1);
  EXPECT_DOUBLE_EQ(SpreadFraction({100}), 0);
  EXPECT_NEAR(GigabytesPerSecond(2e9, 100), 20, 1e-9);
  EXPECT_NEAR(TeraflopsPerSecond(2.0 * 8192 * 8192 * 8192, 1.4), 785.4, 0.1);
}

TEST(JobArgs, RoundTripThroughArgv) {
  JobArgs args;
  args.site_packages = {"/a/site-packages", "/b/dist-packages"};
  args.quick = true;
  args.options = {{"max-bytes", "1048576"}};
  JobArgs back = ParseJobArgs(JobArgsToArgv(args));
  EXPECT_EQ(back.site_packages, args.site_packages);
  EXPECT_TRUE(back.quick);
  EXPECT_EQ(back.Option("max-bytes"), "1048576");
  EXPECT_EQ(back.Option("missing", "dflt"), "dflt");
}

TEST(PciBusId, CudaAndNvmlSpellingsMeet) {
  EXPECT_EQ(CanonicalPciBusId("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(CanonicalPciBusId("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(CanonicalPciBusId("3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(CanonicalPciBusId("not a bus id"), "");
}

TEST(ClockEvents, NamesTheBitsThatExplainASlowRun) {
  EXPECT_EQ(ClockEventReasonNames(0x1), std::vector<std::string>{});  // idle says nothing
  EXPECT_EQ(ClockEventReasonNames(0x4 | 0x40), (std::vector<std::string>{"power_cap", "hw_thermal"}));
  EXPECT_EQ(ClockEventReasonNames(0x8 | 0x20), (std::vector<std::string>{"hw_slowdown", "thermal"}));
}

}  // namespace
}  // namespace labcheck::gpu

#include <gtest/gtest.h>

#include "gpu/health/health_verdicts.h"
#include "gpu/health/xid_watch.h"

namespace labcheck::gpu::health {
namespace {

TEST(Xid, ParsesTheDriversKernelLogLine) {
  auto x = ParseXidLine("NVRM: Xid (PCI:0000:3B:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->pci, "0000:3b:00");
  EXPECT_EQ(x->xid, 79);
  EXPECT_EQ(x->line.back(), '.');
  EXPECT_FALSE(ParseXidLine("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.124.06").has_value());
  EXPECT_TRUE(SameGpu(x->pci, "0000:3b:00.0"));
  EXPECT_FALSE(SameGpu(x->pci, "0000:5e:00.0"));
}

TEST(Xid, HardwareXidsAreTheCardsFault) {
  EXPECT_TRUE(IsHardwareXid(79));
  EXPECT_TRUE(IsHardwareXid(48));
  EXPECT_FALSE(IsHardwareXid(13));  // graphics engine exception: usually the program
}

TEST(Xid, WatchWithoutEventFunctionsIsNotAvailable) {
  nvml::NvmlHealthApi none;
  XidWatch watch(none, {reinterpret_cast<nvml::nvmlDevice_t>(0x1)});
  std::vector<nlohmann::json> seen = watch.Stop();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].contains("na"));
}

}  // namespace
}  // namespace labcheck::gpu::health

// NVSwitch SXid lines (gpu/health/sxid.h) as dmesg and journalctl -k print them: switch, bus id,
// number and the driver's severity; a boot drops what came before.
#include "gpu/health/sxid.h"

#include <gtest/gtest.h>

namespace labcheck::gpu::health {
namespace {

TEST(Sxid, ParsesTheDriversLine) {
  const std::optional<KernelSxid> s = ParseSxidLine(
      "[ 1234.567890] nvidia-nvswitch3: SXid (PCI:0000:C6:00.0): 20034, Fatal, Link 30 LTSSM Fault Up");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->nvswitch, "nvidia-nvswitch3");
  EXPECT_EQ(s->pci, "0000:c6:00.0");
  EXPECT_EQ(s->sxid, 20034);
  EXPECT_TRUE(s->fatal);
  EXPECT_EQ(s->text, "Link 30 LTSSM Fault Up");
  const std::optional<KernelSxid> minor = ParseSxidLine(
      "Dec 06 10:00:01 node7 kernel: nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)");
  ASSERT_TRUE(minor);
  EXPECT_FALSE(minor->fatal);
  EXPECT_EQ(minor->sxid, 12028);
  EXPECT_FALSE(ParseSxidLine("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."));
}

TEST(Sxid, ABootStartsAfresh) {
  const std::vector<std::string> log = {
      "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 22013, Fatal, Minion Link DLREQ interrupt",
      "[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075)",
      "nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 20009, Non-fatal, Link 28 RX Short Error Rate"};
  const std::vector<KernelSxid> sxids = KernelSxidsOf(log);
  ASSERT_EQ(sxids.size(), 1u);
  EXPECT_EQ(sxids[0].sxid, 20009);
}

}  // namespace
}  // namespace labcheck::gpu::health

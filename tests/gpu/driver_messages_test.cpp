// The driver's messages a gate acts on besides XIDs (gpu/health/driver_messages.h), on the peers'
// fixtures and on lines written for these tests from the driver's own format strings.
#include <gtest/gtest.h>

#include "gpu/health/driver_messages.h"
#include "gpu/health/kernel_log.h"

namespace labcheck::gpu::health {
namespace {

std::vector<std::string> MessagesFixture(const std::string& name) {
  Result<std::vector<std::string>> lines =
      ReadKernelLogLines(std::string(LAB_CHECK_SOURCE_DIR) + "/tests/gpu/testdata/kernel_log/" + name);
  EXPECT_TRUE(lines.ok()) << name;
  return lines.ok() ? *lines : std::vector<std::string>{};
}

// One message per card however often the driver retried; the older line without a card kept apart.
TEST(DriverMessages, AnInitialisationThatFailedIsOnePerCard) {
  const std::vector<DriverMessage> m = DriverMessagesOf(MessagesFixture("rminitadapter.log"));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].kind, "init_failed");
  EXPECT_EQ(m[0].pci, "0000:0b:00");
  EXPECT_EQ(m[0].detail, "0x62:0x65:2522");
  EXPECT_EQ(m[0].line, "NVRM: GPU 0000:0b:00.0: RmInitAdapter failed! (0x62:0x65:2522)");
  EXPECT_EQ(m[0].also.size(), 3u);
  EXPECT_DOUBLE_EQ(*m[0].time_s, 21.000001);
  EXPECT_EQ(m[1].pci, "");
  EXPECT_EQ(m[1].detail, "0x30:0xffffffff:720");
  // No XID among them.
  EXPECT_TRUE(KernelXidsOf(MessagesFixture("rminitadapter.log")).empty());
}

TEST(DriverMessages, NvlinkPeersTheDriverCouldNotDiscover) {
  const std::vector<DriverMessage> m = DriverMessagesOf(MessagesFixture("gpud-nvlink-rx-detect.log"));
  ASSERT_EQ(m.size(), 1u);  // three lines, one kind, no card: one message with the others as evidence
  EXPECT_EQ(m[0].kind, "nvlink_rx_detect_failed");
  EXPECT_EQ(m[0].line, "NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask failed!");
  EXPECT_EQ(m[0].also.size(), 2u);
  EXPECT_TRUE(DriverMessagesOf({"NVRM: NVLink link training completed"}).empty());
}

TEST(DriverMessages, ANewBootDropsThem) {
  EXPECT_TRUE(DriverMessagesOf({"[ 21.0] NVRM: GPU 0000:0b:00.0: RmInitAdapter failed! (0x62:0x65:2522)",
                                "[  0.000000] Linux version 6.1.0-28-amd64"})
                  .empty());
  EXPECT_TRUE(DriverMessagesOf({"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."}).empty());
}

}  // namespace
}  // namespace labcheck::gpu::health

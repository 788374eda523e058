// Pre-flight findings read from a fake /sys and /proc tree, and the ACS parser on config space
// laid out as the PCIe spec has it.
#include <gtest/gtest.h>

#include "gpu/collective/preflight.h"
#include "../platform/temp_tree.h"

namespace labcheck::gpu {
namespace {

// 4 KiB of config space with an extended capability chain at 0x100: AER (id 1) → ACS (id 0xD).
std::vector<uint8_t> ConfigWithAcs(uint16_t acs_control) {
  std::vector<uint8_t> config(4096, 0);
  auto put32 = [&](size_t at, uint32_t v) {
    for (int b = 0; b < 4; ++b) config[at + b] = static_cast<uint8_t>(v >> (8 * b));
  };
  put32(0x100, 0x0001u | (1u << 16) | (0x148u << 20));  // AER, version 1, next at 0x148
  put32(0x148, 0x000Du | (1u << 16));                    // ACS, version 1, last
  config[0x148 + 6] = static_cast<uint8_t>(acs_control);
  config[0x148 + 7] = static_cast<uint8_t>(acs_control >> 8);
  return config;
}

TEST(Acs, ParsesControlBitsThroughTheCapabilityChain) {
  std::optional<AcsControl> acs = ParseAcsControl(ConfigWithAcs(0x001D));  // SV, RR, CR, UF
  ASSERT_TRUE(acs);
  EXPECT_TRUE(acs->source_validation);
  EXPECT_FALSE(acs->translation_blocking);
  EXPECT_TRUE(acs->request_redirect);
  EXPECT_TRUE(acs->completion_redirect);
  EXPECT_TRUE(acs->upstream_forwarding);
  std::optional<AcsControl> off = ParseAcsControl(ConfigWithAcs(0));
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->request_redirect);
}

TEST(Acs, NoCapabilityOrUnprivilegedReadGivesNothing) {
  EXPECT_FALSE(ParseAcsControl(std::vector<uint8_t>(64, 0xAB)));  // non-root reads 64 bytes
  std::vector<uint8_t> no_acs(4096, 0);
  no_acs[0x100] = 0x01;  // AER only, no next
  EXPECT_FALSE(ParseAcsControl(no_acs));
  std::vector<uint8_t> loop(4096, 0);
  loop[0x100] = 0x01;
  loop[0x102] = 0x00;
  loop[0x103] = 0x10;  // next pointer 0x100: itself
  EXPECT_FALSE(ParseAcsControl(loop));
}

TEST(Preflight, ReadsIommuAcsAndSharedMemoryFromTheTree) {
  testing::TempTree tree;
  tree.Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 amd_iommu=on iommu=pt quiet\n");
  tree.Write("sys/kernel/iommu_groups/0/type", "identity");
  tree.Write("sys/bus/pci/devices/0000:00:01.1/class", "0x060400\n");
  std::vector<uint8_t> config = ConfigWithAcs(0x000D);
  tree.Write("sys/bus/pci/devices/0000:00:01.1/config", std::string(config.begin(), config.end()));
  tree.Write("sys/bus/pci/devices/0000:00:03.1/class", "0x060400\n");
  tree.Write("sys/bus/pci/devices/0000:00:03.1/config", std::string(64, '\0'));
  tree.Write("sys/bus/pci/devices/0000:41:00.0/class", "0x030200\n");  // the GPU itself: not a bridge
  Preflight p = ReadPreflight(tree.root().string(), tree.root().string());
  EXPECT_TRUE(p.iommu_groups_present);
  EXPECT_TRUE(p.iommu_passthrough);
  EXPECT_EQ(p.iommu_cmdline, "amd_iommu=on iommu=pt");
  EXPECT_FALSE(p.IommuRisk());
  EXPECT_EQ(p.bridges_checked, 2);
  EXPECT_EQ(p.bridges_unreadable, 1);
  ASSERT_EQ(p.acs_redirecting.size(), 1u);
  EXPECT_EQ(p.acs_redirecting[0].bdf, "0000:00:01.1");
  ASSERT_TRUE(p.shm_gib.has_value());
  EXPECT_GT(*p.shm_gib, 0);
  nlohmann::json j = p.ToJson();
  EXPECT_EQ(j["acs_redirecting_bridges"][0]["bdf"], "0000:00:01.1");
}

TEST(Preflight, IommuTranslatingWithoutPassthroughIsARisk) {
  testing::TempTree tree;
  tree.Write("proc/cmdline", "root=/dev/sda1 intel_iommu=on\n");
  tree.Write("sys/kernel/iommu_groups/7/type", "DMA");
  Preflight p = ReadPreflight(tree.root().string(), "/nonexistent/shm");
  EXPECT_TRUE(p.IommuRisk());
  EXPECT_FALSE(p.shm_gib.has_value());
  EXPECT_FALSE(p.ShmTooSmall());

  testing::TempTree empty;
  EXPECT_FALSE(ReadPreflight(empty.root().string(), "/nonexistent").IommuRisk());
}

}  // namespace
}  // namespace labcheck::gpu

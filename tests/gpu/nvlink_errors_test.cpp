// NVLink error counters (gpu/health/nvlink_errors.h) through a hand-made NVML: active links only,
// and the growth between two reads per link and counter.
#include "gpu/health/nvlink_errors.h"

#include <gtest/gtest.h>

#include "gpu/health/health_facts.h"

namespace labcheck::gpu::health {
namespace {

unsigned long long g_replays = 0;

// Links 0 and 1 active, link 2 down, no link 3 and beyond.
nvml::nvmlReturn_t FakeState(nvml::nvmlDevice_t, unsigned link, nvml::nvmlEnableState_t* active) {
  if (link > 2) return nvml::kErrorNotSupported;
  *active = link < 2 ? nvml::kFeatureEnabled : 0;
  return nvml::kSuccess;
}

nvml::nvmlReturn_t FakeCounter(nvml::nvmlDevice_t, unsigned link, int counter, unsigned long long* value) {
  if (counter == nvml::kNvLinkErrorCrcData) return nvml::kErrorNotSupported;
  *value = link == 1 && counter == nvml::kNvLinkErrorReplay ? g_replays : 0;
  return nvml::kSuccess;
}

TEST(NvLinkErrors, ActiveLinksAndTheirGrowth) {
  nvml::NvmlApi base;
  base.nvmlDeviceGetNvLinkState = FakeState;
  nvml::NvmlHealthApi h;
  h.nvmlDeviceGetNvLinkErrorCounter = FakeCounter;
  g_replays = 40;
  const nlohmann::json before = ReadNvLinkErrorCounters(base, h, nullptr);
  ASSERT_EQ(before.size(), 2u) << before.dump();
  EXPECT_FALSE(before[0].contains("crc_data"));
  g_replays = 52;
  const nlohmann::json after = NvLinkErrorGrowth(before, ReadNvLinkErrorCounters(base, h, nullptr));
  EXPECT_EQ(after[1]["replay"], 52);
  EXPECT_EQ(after[1]["replay_growth"], 12);
  EXPECT_EQ(after[0]["replay_growth"], 0);
  // A counter that went down (a reset between the reads) grew by nothing.
  EXPECT_EQ(NvLinkErrorGrowth(after, before)[1]["replay_growth"], 0);
  EXPECT_TRUE(IsNotAvailable(ReadNvLinkErrorCounters(base, nvml::NvmlHealthApi{}, nullptr)));
}

}  // namespace
}  // namespace labcheck::gpu::health

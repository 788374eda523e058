// The driver's recovery action (gpu/health/recovery_action.h) read through a hand-made
// nvmlDeviceGetFieldValues: each value of the enum, a field the driver does not know (an older
// driver's per-record NOT_SUPPORTED), and a library without the function.
#include "gpu/health/recovery_action.h"

#include <gtest/gtest.h>

#include "gpu/health/health_facts.h"

namespace labcheck::gpu::health {
namespace {

nvml::nvmlReturn_t g_record_return = nvml::kSuccess;
unsigned g_value = 0;
unsigned g_asked_field = 0;

nvml::nvmlReturn_t FakeFieldValues(nvml::nvmlDevice_t, int count, nvml::nvmlFieldValue_t* values) {
  if (count != 1 || values == nullptr) return nvml::kErrorInvalidArgument;
  g_asked_field = values[0].fieldId;
  values[0].nvmlReturn = g_record_return;
  values[0].valueType = nvml::kValueTypeUnsignedInt;
  values[0].value.uiVal = g_value;
  return nvml::kSuccess;
}

nlohmann::json Read(nvml::nvmlReturn_t record, unsigned value) {
  g_record_return = record;
  g_value = value;
  nvml::NvmlHealthApi api;
  api.nvmlDeviceGetFieldValues = FakeFieldValues;
  return ReadRecoveryAction(api, nullptr);
}

TEST(RecoveryAction, EachActionByItsKey) {
  EXPECT_EQ(Read(nvml::kSuccess, 0), "none");
  EXPECT_EQ(g_asked_field, 230u);
  EXPECT_EQ(Read(nvml::kSuccess, 1), "gpu_reset");
  EXPECT_EQ(Read(nvml::kSuccess, 2), "node_reboot");
  EXPECT_EQ(Read(nvml::kSuccess, 3), "drain_p2p");
  EXPECT_EQ(Read(nvml::kSuccess, 4), "drain_and_reset");
  EXPECT_EQ(Read(nvml::kSuccess, 9), "unknown_9");
}

TEST(RecoveryAction, AnOlderDriverIsNotAvailableNeverAnAction) {
  EXPECT_TRUE(IsNotAvailable(Read(nvml::kErrorNotSupported, 1)));
  EXPECT_TRUE(IsNotAvailable(ReadRecoveryAction(nvml::NvmlHealthApi{}, nullptr)));
}

TEST(RecoveryAction, TextSaysWhatTheDriverAsks) {
  EXPECT_EQ(RecoveryActionText("gpu_reset").en, "the driver asks for a GPU reset");
  EXPECT_EQ(RecoveryActionText("node_reboot").ru, "драйвер требует перезагрузки узла");
  EXPECT_TRUE(RecoveryActionText("none").empty());
}

}  // namespace
}  // namespace labcheck::gpu::health

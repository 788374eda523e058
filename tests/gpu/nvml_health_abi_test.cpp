// The health NVML declarations (src/gpu/nvidia/nvml_health_api.h) against NVIDIA's nvml.h, where
// CMake finds it (part of the gpu_abi_tests target with abi_test.cpp).
#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "gpu/nvidia/nvml_health_api.h"

#if __has_include(<nvml.h>)
#include <nvml.h>
#define LAB_HAVE_NVML_H 1
#endif

namespace labcheck::gpu {
namespace {

#ifdef LAB_HAVE_NVML_H
#ifdef NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
// Value 5 is CUDA 13.3's nvml.h's; an enumerator is no macro, so its presence is asked of the enum
// type, in a template so that an older header's missing name is never looked up.
template <typename Action>
void ExpectImexDomainValue() {
  if constexpr (requires { Action::NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN; })
    EXPECT_EQ(nvml::kRecoveryActionRecoverImexDomain, static_cast<unsigned>(Action::NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN));
}
#endif

TEST(Abi, NvmlHealthTypesAndConstants) {
  static_assert(sizeof(nvml::nvmlEventData_t) == sizeof(::nvmlEventData_t));
  static_assert(offsetof(nvml::nvmlEventData_t, eventType) == offsetof(::nvmlEventData_t, eventType));
  static_assert(offsetof(nvml::nvmlEventData_t, eventData) == offsetof(::nvmlEventData_t, eventData));
  static_assert(offsetof(nvml::nvmlEventData_t, gpuInstanceId) == offsetof(::nvmlEventData_t, gpuInstanceId));
  static_assert(sizeof(nvml::nvmlProcessInfo_t) == sizeof(::nvmlProcessInfo_t));
  static_assert(offsetof(nvml::nvmlProcessInfo_t, usedGpuMemory) == offsetof(::nvmlProcessInfo_t, usedGpuMemory));
  static_assert(offsetof(nvml::nvmlProcessInfo_t, computeInstanceId) == offsetof(::nvmlProcessInfo_t, computeInstanceId));
  EXPECT_EQ(nvml::kErrorInsufficientSize, NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(nvml::kErrorTimeout, NVML_ERROR_TIMEOUT);
  EXPECT_EQ(nvml::kErrorFunctionNotFound, NVML_ERROR_FUNCTION_NOT_FOUND);
  EXPECT_EQ(nvml::kErrorNoData, NVML_ERROR_NO_DATA);
  EXPECT_EQ(nvml::kMemoryErrorCorrected, NVML_MEMORY_ERROR_TYPE_CORRECTED);
  EXPECT_EQ(nvml::kMemoryErrorUncorrected, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
  EXPECT_EQ(nvml::kVolatileEcc, NVML_VOLATILE_ECC);
  EXPECT_EQ(nvml::kAggregateEcc, NVML_AGGREGATE_ECC);
  EXPECT_EQ(nvml::kPageRetirementMultipleSingleBit, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
  EXPECT_EQ(nvml::kPageRetirementDoubleBit, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
  EXPECT_EQ(nvml::kComputeModeDefault, NVML_COMPUTEMODE_DEFAULT);
  EXPECT_EQ(nvml::kComputeModeExclusiveThread, NVML_COMPUTEMODE_EXCLUSIVE_THREAD);
  EXPECT_EQ(nvml::kComputeModeProhibited, NVML_COMPUTEMODE_PROHIBITED);
  EXPECT_EQ(nvml::kComputeModeExclusiveProcess, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS);
  EXPECT_EQ(nvml::kMigDisabled, static_cast<unsigned>(NVML_DEVICE_MIG_DISABLE));
  EXPECT_EQ(nvml::kMigEnabled, static_cast<unsigned>(NVML_DEVICE_MIG_ENABLE));
  EXPECT_EQ(nvml::kTemperatureThresholdShutdown, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
  EXPECT_EQ(nvml::kTemperatureThresholdSlowdown, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
  EXPECT_EQ(nvml::kClockMem, NVML_CLOCK_MEM);
  EXPECT_EQ(nvml::kEventTypeXidCriticalError, static_cast<unsigned long long>(nvmlEventTypeXidCriticalError));
  EXPECT_EQ(nvml::kValueNotAvailable, static_cast<unsigned long long>(NVML_VALUE_NOT_AVAILABLE));
  static_assert(sizeof(nvml::nvmlValue_t) == sizeof(::nvmlValue_t));
  static_assert(sizeof(nvml::nvmlFieldValue_t) == sizeof(::nvmlFieldValue_t));
  static_assert(offsetof(nvml::nvmlFieldValue_t, scopeId) == offsetof(::nvmlFieldValue_t, scopeId));
  static_assert(offsetof(nvml::nvmlFieldValue_t, valueType) == offsetof(::nvmlFieldValue_t, valueType));
  static_assert(offsetof(nvml::nvmlFieldValue_t, nvmlReturn) == offsetof(::nvmlFieldValue_t, nvmlReturn));
  static_assert(offsetof(nvml::nvmlFieldValue_t, value) == offsetof(::nvmlFieldValue_t, value));
  // Our pointer's shape, parameter by parameter, is the header's (the count is a signed int).
  static_assert(std::is_same_v<decltype(&::nvmlDeviceGetFieldValues), ::nvmlReturn_t (*)(::nvmlDevice_t, int, ::nvmlFieldValue_t*)>);
  static_assert(std::is_same_v<decltype(nvml::NvmlHealthApi::nvmlDeviceGetFieldValues),
                               nvml::nvmlReturn_t (*)(nvml::nvmlDevice_t, int, nvml::nvmlFieldValue_t*)>);
  static_assert(std::is_same_v<decltype(&::nvmlDeviceGetNvLinkErrorCounter),
                               ::nvmlReturn_t (*)(::nvmlDevice_t, unsigned, ::nvmlNvLinkErrorCounter_t, unsigned long long*)>);
  static_assert(sizeof(::nvmlNvLinkErrorCounter_t) == sizeof(int));  // our pointer passes the enum as int
  static_assert(std::is_same_v<decltype(&::nvmlDeviceGetMemoryErrorCounter),
                               ::nvmlReturn_t (*)(::nvmlDevice_t, ::nvmlMemoryErrorType_t, ::nvmlEccCounterType_t,
                                                  ::nvmlMemoryLocation_t, unsigned long long*)>);
  static_assert(sizeof(::nvmlMemoryLocation_t) == sizeof(int) && sizeof(::nvmlMemoryErrorType_t) == sizeof(int) &&
                sizeof(::nvmlEccCounterType_t) == sizeof(int));  // our pointer passes the enums as int
  EXPECT_EQ(nvml::kMemoryLocationSram, NVML_MEMORY_LOCATION_SRAM);
  EXPECT_EQ(nvml::kNvLinkErrorReplay, NVML_NVLINK_ERROR_DL_REPLAY);
  EXPECT_EQ(nvml::kNvLinkErrorRecovery, NVML_NVLINK_ERROR_DL_RECOVERY);
  EXPECT_EQ(nvml::kNvLinkErrorCrcFlit, NVML_NVLINK_ERROR_DL_CRC_FLIT);
  EXPECT_EQ(nvml::kNvLinkErrorCrcData, NVML_NVLINK_ERROR_DL_CRC_DATA);
  EXPECT_EQ(nvml::kValueTypeUnsignedInt, NVML_VALUE_TYPE_UNSIGNED_INT);
  EXPECT_EQ(nvml::kValueTypeUnsignedLongLong, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
#ifdef NVML_FI_DEV_GET_GPU_RECOVERY_ACTION  // nvml.h of NVML 12.8 (R570) and later; the one install-deps.sh unpacks is older
  EXPECT_EQ(nvml::kFieldGpuRecoveryAction, static_cast<unsigned>(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION));
  EXPECT_EQ(nvml::kRecoveryActionNone, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_NONE));
  EXPECT_EQ(nvml::kRecoveryActionGpuReset, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_GPU_RESET));
  EXPECT_EQ(nvml::kRecoveryActionNodeReboot, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_NODE_REBOOT));
  EXPECT_EQ(nvml::kRecoveryActionDrainP2p, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_DRAIN_P2P));
  EXPECT_EQ(nvml::kRecoveryActionDrainAndReset, static_cast<unsigned>(NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET));
  ExpectImexDomainValue<nvmlDeviceGpuRecoveryAction_t>();
#endif
#ifdef NVML_GPU_FABRIC_STATE_IN_PROGRESS  // nvml.h of CUDA 12.x and later; the one install-deps.sh unpacks is older
  static_assert(sizeof(nvml::nvmlGpuFabricInfo_t) == sizeof(::nvmlGpuFabricInfo_t));
  static_assert(offsetof(nvml::nvmlGpuFabricInfo_t, status) == offsetof(::nvmlGpuFabricInfo_t, status));
  static_assert(offsetof(nvml::nvmlGpuFabricInfo_t, state) == offsetof(::nvmlGpuFabricInfo_t, state));
  EXPECT_EQ(nvml::kGpuFabricStateNotStarted, NVML_GPU_FABRIC_STATE_NOT_STARTED);
  EXPECT_EQ(nvml::kGpuFabricStateInProgress, NVML_GPU_FABRIC_STATE_IN_PROGRESS);
  EXPECT_EQ(nvml::kGpuFabricStateCompleted, NVML_GPU_FABRIC_STATE_COMPLETED);
#endif
}
#else
TEST(Abi, NvmlHealthTypesAndConstants) { GTEST_SKIP() << "nvml.h is not installed here (cuda-nvml-dev)"; }
#endif

}  // namespace
}  // namespace labcheck::gpu

// Our declarations of the NVML functions behind gpu.health and the burn test's samples: ECC
// counters, retired pages, row remapping, XID events, PCIe replays, power/compute/MIG modes, the
// processes holding GPU memory, temperature thresholds, fan and memory clock. Only what is used,
// bound from the same libnvidia-ml.so.1 as nvml_api.h (every entry optional: an old driver lacks
// some, and a missing one makes that field "n/a", never a failure).
//
// Values and layouts from NVIDIA's NVML API reference (checked 2026-12-03):
//   https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html        (queries)
//   https://docs.nvidia.com/deploy/nvml-api/group__nvmlEvents.html              (event types)
//   https://docs.nvidia.com/deploy/nvml-api/group__nvmlEventsMethods.html       (event sets)
//   https://docs.nvidia.com/deploy/nvml-api/api/structnvmlEventData__t.html     (event data)
//   https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html        (enums)
//   https://docs.nvidia.com/deploy/nvml-api/structnvmlProcessInfo__t.html       (process info)
// tests/gpu/nvml_health_abi_test.cpp compares every one with nvml.h where that header is found.
#pragma once

#include "gpu/nvidia/nvml_api.h"

namespace labcheck::gpu::nvml {

struct nvmlEventSet_st;
using nvmlEventSet_t = nvmlEventSet_st*;

inline constexpr nvmlReturn_t kErrorInsufficientSize = 7;    // NVML_ERROR_INSUFFICIENT_SIZE
inline constexpr nvmlReturn_t kErrorTimeout = 10;            // NVML_ERROR_TIMEOUT (event wait: nothing came)
inline constexpr nvmlReturn_t kErrorFunctionNotFound = 13;   // NVML_ERROR_FUNCTION_NOT_FOUND
inline constexpr nvmlReturn_t kErrorNoData = 21;             // NVML_ERROR_NO_DATA

// nvmlMemoryErrorType_t and nvmlEccCounterType_t (nvmlDeviceGetTotalEccErrors).
inline constexpr int kMemoryErrorCorrected = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
inline constexpr int kMemoryErrorUncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
inline constexpr int kVolatileEcc = 0;             // NVML_VOLATILE_ECC: since the last driver load
inline constexpr int kAggregateEcc = 1;            // NVML_AGGREGATE_ECC: over the card's life (InfoROM)
// nvmlMemoryLocation_t (nvmlDeviceGetMemoryErrorCounter): "Turing+ SRAM", the on-chip memories
// (caches, register files) as one counter; nvidia-smi's ecc.errors.*.sram.
inline constexpr int kMemoryLocationSram = 7;       // NVML_MEMORY_LOCATION_SRAM

// nvmlPageRetirementCause_t (nvmlDeviceGetRetiredPages).
inline constexpr int kPageRetirementMultipleSingleBit = 0;  // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
inline constexpr int kPageRetirementDoubleBit = 1;          // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR

// nvmlComputeMode_t.
inline constexpr int kComputeModeDefault = 0;           // NVML_COMPUTEMODE_DEFAULT
inline constexpr int kComputeModeExclusiveThread = 1;   // NVML_COMPUTEMODE_EXCLUSIVE_THREAD (deprecated)
inline constexpr int kComputeModeProhibited = 2;        // NVML_COMPUTEMODE_PROHIBITED
inline constexpr int kComputeModeExclusiveProcess = 3;  // NVML_COMPUTEMODE_EXCLUSIVE_PROCESS

inline constexpr unsigned kMigDisabled = 0;  // NVML_DEVICE_MIG_DISABLE
inline constexpr unsigned kMigEnabled = 1;   // NVML_DEVICE_MIG_ENABLE

// nvmlTemperatureThresholds_t.
inline constexpr int kTemperatureThresholdShutdown = 0;  // NVML_TEMPERATURE_THRESHOLD_SHUTDOWN
inline constexpr int kTemperatureThresholdSlowdown = 1;  // NVML_TEMPERATURE_THRESHOLD_SLOWDOWN

// nvmlClockType_t (kClockSm = 1 is in nvml_api.h).
inline constexpr int kClockMem = 2;  // NVML_CLOCK_MEM

// Event types (nvmlEventType*), a bit mask.
inline constexpr unsigned long long kEventTypeXidCriticalError = 0x0000000000000008ULL;  // nvmlEventTypeXidCriticalError

// usedGpuMemory when the driver cannot say (Windows WDDM, some containers): NVML_VALUE_NOT_AVAILABLE.
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;

struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // the XID number for nvmlEventTypeXidCriticalError
  unsigned gpuInstanceId;
  unsigned computeInstanceId;
};

// The layout nvmlDeviceGetComputeRunningProcesses_v3 fills (nvmlProcessInfo_t since CUDA 11.x).
struct nvmlProcessInfo_t {
  unsigned pid;
  unsigned long long usedGpuMemory;  // bytes, or kValueNotAvailable
  unsigned gpuInstanceId;
  unsigned computeInstanceId;
};

// nvmlDeviceGetFieldValues: one record per field asked for; the driver fills valueType, nvmlReturn
// and value (nvml.h, nvmlFieldValue_t and nvmlValue_t). A field this driver does not know comes
// back with its own nvmlReturn set, the call itself succeeding.
union nvmlValue_t {
  double dVal;
  unsigned uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
};

struct nvmlFieldValue_t {
  unsigned fieldId;
  unsigned scopeId;  // the NVLink for per-link fields
  long long timestamp;
  long long latencyUsec;
  int valueType;  // nvmlValueType_t
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};

// nvmlValueType_t.
inline constexpr int kValueTypeUnsignedInt = 1;        // NVML_VALUE_TYPE_UNSIGNED_INT
inline constexpr int kValueTypeUnsignedLongLong = 3;   // NVML_VALUE_TYPE_UNSIGNED_LONG_LONG

// The driver's verdict on what a card needs (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION,
// nvmlDeviceGpuRecoveryAction_t). The public nvml.h has field 230 and the enum from NVML 12.8 on
// (the CUDA 12.8 header, gitlab.com/nvidia/headers/cuda-individual/nvml_dev v12.8.90, as NVIDIA's
// go-nvml carries it: gen/nvml/nvml.h at commit f420a3285a89be0f8c68649f1e2dae2b7ea9b74d; the 12.6
// header before it has neither), the R570 driver's; value 5, NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_
// DOMAIN ("Recover IMEX Domain."), from CUDA 13.3's (go-nvml commit
// 8b8585bde8bbfd5cd5c3bec0aba1a0ffa354a3b8). The nvml.h install-deps.sh unpacks (API 11, fields up to
// 166) has none of them; nvml_health_abi_test.cpp compares these with any nvml.h new enough.
inline constexpr unsigned kFieldGpuRecoveryAction = 230;
inline constexpr unsigned kRecoveryActionNone = 0;
inline constexpr unsigned kRecoveryActionGpuReset = 1;
inline constexpr unsigned kRecoveryActionNodeReboot = 2;
inline constexpr unsigned kRecoveryActionDrainP2p = 3;
inline constexpr unsigned kRecoveryActionDrainAndReset = 4;
inline constexpr unsigned kRecoveryActionRecoverImexDomain = 5;

// nvmlNvLinkErrorCounter_t (nvmlDeviceGetNvLinkErrorCounter): the data link's transmit replays and
// recoveries, and the receive CRC errors on flow-control digits and on data.
inline constexpr int kNvLinkErrorReplay = 0;    // NVML_NVLINK_ERROR_DL_REPLAY
inline constexpr int kNvLinkErrorRecovery = 1;  // NVML_NVLINK_ERROR_DL_RECOVERY
inline constexpr int kNvLinkErrorCrcFlit = 2;   // NVML_NVLINK_ERROR_DL_CRC_FLIT
inline constexpr int kNvLinkErrorCrcData = 3;   // NVML_NVLINK_ERROR_DL_CRC_DATA

// nvmlDeviceGetGpuFabricInfo (Hopper and later on NVSwitch systems): how far the fabric manager
// got registering this GPU. Not in the nvml.h install-deps.sh unpacks (API 11); layout and values
// from NVML's nvml.h of CUDA 12.x (nvmlGpuFabricInfo_t: clusterUuid[NVML_GPU_FABRIC_UUID_LEN = 16],
// nvmlReturn_t status "must be checked only if state returns complete", unsigned cliqueId,
// nvmlGpuFabricState_t state, an unsigned char: NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0,
// NOT_STARTED 1, IN_PROGRESS 2, COMPLETED 3), as go-nvml's pkg/nvml/nvml.h carries it. The
// versioned nvmlDeviceGetGpuFabricInfoV adds a version and a health mask we do not use.
struct nvmlGpuFabricInfo_t {
  unsigned char cluster_uuid[16];
  nvmlReturn_t status;
  unsigned clique_id;
  unsigned char state;
};
inline constexpr unsigned char kGpuFabricStateNotSupported = 0;
inline constexpr unsigned char kGpuFabricStateNotStarted = 1;
inline constexpr unsigned char kGpuFabricStateInProgress = 2;
inline constexpr unsigned char kGpuFabricStateCompleted = 3;

struct NvmlHealthApi {
  nvmlReturn_t (*nvmlDeviceGetTotalEccErrors)(nvmlDevice_t device, int error_type, int counter_type,
                                              unsigned long long* count) = nullptr;
  // Per location; "requires ECC Mode to be enabled", NOT_SUPPORTED where the card does not count there.
  nvmlReturn_t (*nvmlDeviceGetMemoryErrorCounter)(nvmlDevice_t device, int error_type, int counter_type, int location,
                                                  unsigned long long* count) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetRetiredPages)(nvmlDevice_t device, int cause, unsigned* page_count,
                                            unsigned long long* addresses) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetRetiredPagesPendingStatus)(nvmlDevice_t device, nvmlEnableState_t* pending) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetRemappedRows)(nvmlDevice_t device, unsigned* corrected, unsigned* uncorrected,
                                            unsigned* pending, unsigned* failure_occurred) = nullptr;
  nvmlReturn_t (*nvmlEventSetCreate)(nvmlEventSet_t* set) = nullptr;
  nvmlReturn_t (*nvmlDeviceRegisterEvents)(nvmlDevice_t device, unsigned long long event_types,
                                           nvmlEventSet_t set) = nullptr;
  nvmlReturn_t (*nvmlEventSetWait)(nvmlEventSet_t set, nvmlEventData_t* data, unsigned timeout_ms) = nullptr;  // _v2
  nvmlReturn_t (*nvmlEventSetFree)(nvmlEventSet_t set) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetPcieReplayCounter)(nvmlDevice_t device, unsigned* value) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetPowerManagementDefaultLimit)(nvmlDevice_t device, unsigned* milliwatts) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetComputeMode)(nvmlDevice_t device, int* mode) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMigMode)(nvmlDevice_t device, unsigned* current, unsigned* pending) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses)(nvmlDevice_t device, unsigned* count,
                                                       nvmlProcessInfo_t* infos) = nullptr;  // _v3
  nvmlReturn_t (*nvmlDeviceGetTemperatureThreshold)(nvmlDevice_t device, int threshold, unsigned* celsius) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetFanSpeed)(nvmlDevice_t device, unsigned* percent) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetFieldValues)(nvmlDevice_t device, int count, nvmlFieldValue_t* values) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetNvLinkErrorCounter)(nvmlDevice_t device, unsigned link, int counter,
                                                  unsigned long long* value) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetGpuFabricInfo)(nvmlDevice_t device, nvmlGpuFabricInfo_t* info) = nullptr;
};

}  // namespace labcheck::gpu::nvml

// Our declarations of the NVML (libnvidia-ml.so.1) functions lab_check reads, after nvtop's
// extract_gpuinfo_nvidia.c: only what is used, loaded with dlopen. Values follow nvml.h (NVML
// 13.x); the ABI test compares them where nvml.h is installed (it is not part of the CUDA
// toolkit on every system: the driver ships the library, the headers come with cuda-nvml-dev).
// To add a query: its types and constants in the section they belong to, its pointer in NvmlApi
// (optional unless the checks cannot work without it), its row in nvml_library.cpp.
#pragma once

namespace labcheck::gpu::nvml {

using nvmlReturn_t = int;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
using nvmlEnableState_t = int;       // NVML_FEATURE_DISABLED 0, NVML_FEATURE_ENABLED 1
using nvmlGpuTopologyLevel_t = int;  // NVML_TOPOLOGY_*

inline constexpr nvmlReturn_t kSuccess = 0;
inline constexpr nvmlReturn_t kErrorUninitialized = 1;
inline constexpr nvmlReturn_t kErrorInvalidArgument = 2;
inline constexpr nvmlReturn_t kErrorNotSupported = 3;
inline constexpr nvmlReturn_t kErrorNoPermission = 4;
inline constexpr nvmlReturn_t kErrorNotFound = 6;
inline constexpr nvmlReturn_t kErrorDriverNotLoaded = 9;   // also what the toolkit's NVML stub answers
inline constexpr nvmlReturn_t kErrorGpuIsLost = 15;
inline constexpr nvmlReturn_t kErrorLibRmVersionMismatch = 18;  // this NVML ≠ the kernel module's version

inline constexpr int kFeatureEnabled = 1;
inline constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
inline constexpr int kClockSm = 1;         // NVML_CLOCK_SM

inline constexpr int kTopologyInternal = 0;
inline constexpr int kTopologySingle = 10;      // one PCIe switch between:   PIX
inline constexpr int kTopologyMultiple = 20;    // several PCIe switches:     PXB
inline constexpr int kTopologyHostBridge = 30;  // the CPU's host bridge:    PHB
inline constexpr int kTopologyNode = 40;        // same NUMA node:            NODE
inline constexpr int kTopologySystem = 50;      // across NUMA nodes (SMP):   SYS

// nvmlClocksEventReason* bits (before NVML 12.2 called nvmlClocksThrottleReason*, same values).
inline constexpr unsigned long long kClockEventGpuIdle = 0x1;
inline constexpr unsigned long long kClockEventApplicationsClocksSetting = 0x2;
inline constexpr unsigned long long kClockEventSwPowerCap = 0x4;
inline constexpr unsigned long long kClockEventHwSlowdown = 0x8;
inline constexpr unsigned long long kClockEventSyncBoost = 0x10;
inline constexpr unsigned long long kClockEventSwThermalSlowdown = 0x20;
inline constexpr unsigned long long kClockEventHwThermalSlowdown = 0x40;
inline constexpr unsigned long long kClockEventHwPowerBrakeSlowdown = 0x80;
inline constexpr unsigned long long kClockEventDisplayClockSetting = 0x100;

// NVLink.
inline constexpr unsigned kNvLinkMaxLinks = 36;  // NVML_NVLINK_MAX_LINKS (NVML 13.3; 18 before Blackwell)
using nvmlIntNvLinkDeviceType_t = int;  // what a link's far end is
inline constexpr int kNvLinkDeviceTypeGpu = 0x00;     // NVML_NVLINK_DEVICE_TYPE_GPU
inline constexpr int kNvLinkDeviceTypeIbmNpu = 0x01;  // NVML_NVLINK_DEVICE_TYPE_IBMNPU
inline constexpr int kNvLinkDeviceTypeSwitch = 0x02;  // NVML_NVLINK_DEVICE_TYPE_SWITCH (HGX/DGX)
inline constexpr int kNvLinkDeviceTypeUnknown = 0xFF;
using nvmlGpuP2PCapsIndex_t = int;
using nvmlGpuP2PStatus_t = int;
inline constexpr int kP2PCapsIndexNvLink = 2;  // NVML_P2P_CAPS_INDEX_NVLINK
inline constexpr int kP2PStatusOk = 0;         // NVML_P2P_STATUS_OK

// Temperature (nvmlDeviceGetTemperatureV, NVML 12.6+; nvmlDeviceGetTemperature is deprecated).
struct nvmlTemperature_t {  // nvmlTemperature_v1_t
  unsigned version;         // kTemperatureV1
  int sensorType;           // NVML_TEMPERATURE_GPU
  int temperature;          // °C
};
// NVML_STRUCT_VERSION(Temperature, 1): the struct's size with the version in the top byte.
inline constexpr unsigned kTemperatureV1 = static_cast<unsigned>(sizeof(nvmlTemperature_t)) | (1u << 24);

// Names and buffers.
inline constexpr unsigned kDeviceNameBufferSize = 96;           // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kSystemDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
inline constexpr unsigned kDeviceSerialBufferSize = 30;         // NVML_DEVICE_SERIAL_BUFFER_SIZE

struct nvmlPciInfo_t {
  char busIdLegacy[16];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;
  unsigned pciSubSystemId;
  char busId[32];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE: "00000000:3B:00.0"
};

struct NvmlApi {
  nvmlReturn_t (*nvmlInit)() = nullptr;  // _v2
  nvmlReturn_t (*nvmlShutdown)() = nullptr;
  const char* (*nvmlErrorString)(nvmlReturn_t result) = nullptr;
  nvmlReturn_t (*nvmlSystemGetDriverVersion)(char* version, unsigned length) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetCount)(unsigned* count) = nullptr;  // _v2
  nvmlReturn_t (*nvmlDeviceGetHandleByIndex)(unsigned index, nvmlDevice_t* device) = nullptr;  // _v2
  nvmlReturn_t (*nvmlDeviceGetHandleByPciBusId)(const char* bus_id, nvmlDevice_t* device) = nullptr;  // _v2
  nvmlReturn_t (*nvmlDeviceGetName)(nvmlDevice_t device, char* name, unsigned length) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetPciInfo)(nvmlDevice_t device, nvmlPciInfo_t* pci) = nullptr;  // _v3
  // Optional from here: a failed or missing query leaves that one field empty (nvtop's rule).
  nvmlReturn_t (*nvmlDeviceGetCurrPcieLinkGeneration)(nvmlDevice_t device, unsigned* gen) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetCurrPcieLinkWidth)(nvmlDevice_t device, unsigned* width) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMaxPcieLinkGeneration)(nvmlDevice_t device, unsigned* gen) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetMaxPcieLinkWidth)(nvmlDevice_t device, unsigned* width) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetEnforcedPowerLimit)(nvmlDevice_t device, unsigned* milliwatts) = nullptr;
  // The board's serial number, as on its sticker (what an RMA asks for). nvml.h: "for all products
  // with an inforom"; NOT_SUPPORTED on GeForce cards.
  nvmlReturn_t (*nvmlDeviceGetSerial)(nvmlDevice_t device, char* serial, unsigned length) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetTemperatureV)(nvmlDevice_t device, nvmlTemperature_t* temperature) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetTemperature)(nvmlDevice_t device, int sensor, unsigned* celsius) = nullptr;  // old
  nvmlReturn_t (*nvmlDeviceGetEccMode)(nvmlDevice_t device, nvmlEnableState_t* current,
                                       nvmlEnableState_t* pending) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetPersistenceMode)(nvmlDevice_t device, nvmlEnableState_t* mode) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetTopologyCommonAncestor)(nvmlDevice_t a, nvmlDevice_t b,
                                                      nvmlGpuTopologyLevel_t* level) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetNvLinkState)(nvmlDevice_t device, unsigned link, nvmlEnableState_t* active) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetNvLinkRemotePciInfo)(nvmlDevice_t device, unsigned link,
                                                   nvmlPciInfo_t* pci) = nullptr;  // _v2
  nvmlReturn_t (*nvmlDeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t device, unsigned link,
                                                      nvmlIntNvLinkDeviceType_t* type) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetP2PStatus)(nvmlDevice_t a, nvmlDevice_t b, nvmlGpuP2PCapsIndex_t index,
                                         nvmlGpuP2PStatus_t* status) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetCurrentClocksEventReasons)(nvmlDevice_t device,
                                                         unsigned long long* reasons) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetClockInfo)(nvmlDevice_t device, int type, unsigned* mhz) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetPowerUsage)(nvmlDevice_t device, unsigned* milliwatts) = nullptr;
  // The CPUs nearest the GPU (its NUMA node's; `nvidia-smi topo -m` "CPU Affinity"): a bitmask,
  // 64 CPUs per unsigned long, `cpu_set_size` longs (bench/numa_placement.h).
  nvmlReturn_t (*nvmlDeviceGetCpuAffinity)(nvmlDevice_t device, unsigned cpu_set_size, unsigned long* cpu_set) = nullptr;
};

}  // namespace labcheck::gpu::nvml

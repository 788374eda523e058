// Shared by the files of the libnvidia-ml.so.1 sim, one file per group of NVML functions
// (system, identity, load-dependent readings, topology). Types and values after NVIDIA's NVML API
// Reference (https://docs.nvidia.com/deploy/nvml-api/); nvml.h is not on this machine.
// A new group (health: ECC counters, retired pages, XID events…) is one more file here reading
// its own keys from Gpu::spec, and those keys with their defaults in core/profile_defaults.json.
#pragma once

#include "core/export.h"
#include "core/profile.h"
#include "core/timeline.h"

namespace nvmlsim {

using nvmlReturn_t = int;
using nvmlDevice_t = const nvsim::Gpu*;

inline constexpr nvmlReturn_t kSuccess = 0;
inline constexpr nvmlReturn_t kUninitialized = 1;
inline constexpr nvmlReturn_t kInvalidArgument = 2;
inline constexpr nvmlReturn_t kNotSupported = 3;
inline constexpr nvmlReturn_t kNotFound = 6;
inline constexpr nvmlReturn_t kInsufficientSize = 7;
inline constexpr nvmlReturn_t kArgumentVersionMismatch = 25;
inline constexpr nvmlReturn_t kUnknown = 999;

struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;
  unsigned pciSubSystemId;
  char busId[32];
};

bool Initialised();
// The GPU behind a handle, or null (also before nvmlInit).
const nvsim::Gpu* Check(nvmlDevice_t device);
// Copies `text` into an NVML string buffer; kInsufficientSize when it does not fit.
nvmlReturn_t CopyString(const std::string& text, char* buffer, unsigned length);
// "load" or "idle", as the card is now (core/timeline.h UnderLoad).
const char* LoadState(const nvsim::Gpu& g);
void FillPciInfo(const std::string& bus_id, unsigned pci_device_id, nvmlPciInfo_t* pci);
// An error counter that grows whenever data flows: `<path>/start`, then `<path>/grows_by` more on
// each read after the first (the first read is the caller's baseline). Counted per GPU and path,
// not tied to the load state, so a descheduled thread on a loaded CI cannot miss the growth
// (the PCIe replay counter, an NVLink's replay counter).
unsigned long long GrowingCounter(const nvsim::Gpu& g, const std::string& path);
// The same for a counter whose start and growth come from a list entry (an NVLink's counters,
// "health/nvlink_errors"): `key` names it for the count of reads.
unsigned long long GrowingCounter(const nvsim::Gpu& g, const std::string& key, double start, double grows_by);

}  // namespace nvmlsim

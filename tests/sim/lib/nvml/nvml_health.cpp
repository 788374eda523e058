// libnvidia-ml.so.1 sim: the health group (gpu.health, the burn test's fan reading). Profile keys
// under each GPU's "health" (tests/sim/README.md); a key that is absent makes the call return
// NVML_ERROR_NOT_SUPPORTED, as a GeForce card does for ECC, remapping and MIG. Prototypes and
// values after NVIDIA's NVML API Reference, Device Queries and Event Handling Methods
// (https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html,
//  https://docs.nvidia.com/deploy/nvml-api/group__nvmlEventsMethods.html).
#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/heat.h"
#include "core/memory_faults.h"
#include "nvml/nvml_internal.h"

using namespace nvmlsim;

namespace {

constexpr nvmlReturn_t kTimeout = 10;
constexpr unsigned long long kXidEvent = 0x8;  // nvmlEventTypeXidCriticalError

struct EventData {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned gpuInstanceId;
  unsigned computeInstanceId;
};

struct ProcessInfo {
  unsigned pid;
  unsigned long long usedGpuMemory;
  unsigned gpuInstanceId;
  unsigned computeInstanceId;
};

// An event set: the XIDs still to deliver, in order.
struct EventSet {
  std::vector<std::pair<nvmlDevice_t, unsigned long long>> pending;
};

std::mutex& EventLock() {
  static std::mutex mutex;
  return mutex;
}

nvmlReturn_t Number(nvmlDevice_t device, const char* path, unsigned long long* out) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (out == nullptr) return kInvalidArgument;
  const nvsim::json* v = g->At(path);
  if (v == nullptr || !v->is_number() || v->get<double>() < 0) return kNotSupported;
  *out = static_cast<unsigned long long>(v->get<double>());
  return kSuccess;
}

// The profile's count plus the ECC events the memory test's reads caused in this process
// (core/memory_faults.h): a card whose reads ECC corrects counts them as it goes.
nvmlReturn_t WithTestEvents(const nvsim::Gpu* g, nvmlReturn_t read, bool uncorrected, unsigned long long* count) {
  if (read == kSuccess && g != nullptr) *count += nvsim::EccEvents(g->index, uncorrected);
  return read;
}

// "ecc/enabled": true; absent (GeForce) or false, no ECC counters.
bool EccEnabled(const nvsim::Gpu& g) {
  const nvsim::json* enabled = g.At("ecc/enabled");
  return enabled != nullptr && enabled->is_boolean() && enabled->get<bool>();
}

}  // namespace

unsigned long long nvmlsim::GrowingCounter(const nvsim::Gpu& g, const std::string& key, double start, double grows_by) {
  static std::map<std::pair<int, std::string>, unsigned long long> reads;
  unsigned long long n = 0;
  {
    std::lock_guard<std::mutex> lock(EventLock());
    n = reads[{g.index, key}]++;
  }
  return static_cast<unsigned long long>(start + n * grows_by);
}

unsigned long long nvmlsim::GrowingCounter(const nvsim::Gpu& g, const std::string& path) {
  return GrowingCounter(g, path, g.Number((path + "/start").c_str()), g.Number((path + "/grows_by").c_str()));
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetTotalEccErrors,
             (nvmlDevice_t device, int error_type, int counter_type, unsigned long long* count)) {
  const nvsim::Gpu* g = Check(device);
  if (g != nullptr && !EccEnabled(*g)) return kNotSupported;
  const std::string path = std::string("health/ecc/") + (error_type == 1 ? "uncorrected" : "corrected") +
                           (counter_type == 1 ? "_aggregate" : "_volatile");
  return WithTestEvents(g, Number(device, path.c_str(), count), error_type == 1, count);
}

// Per location: "Turing+ DRAM" (the device memory, the same counts as the total here) and "Turing+
// SRAM" ("health/ecc/sram_*_volatile", volatile only: the aggregate SRAM count is not modelled and
// answers NOT_SUPPORTED); the older per-unit locations (L1, L2, register file…) NOT_SUPPORTED, as
// nvml.h allows ("if the device does not support ECC error reporting in the specified memory").
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetMemoryErrorCounter,
             (nvmlDevice_t device, int error_type, int counter_type, int location, unsigned long long* count)) {
  const nvsim::Gpu* g = Check(device);
  if (g != nullptr && !EccEnabled(*g)) return kNotSupported;
  if (count == nullptr || error_type < 0 || error_type > 1 || counter_type < 0 || counter_type > 1) return kInvalidArgument;
  const std::string kind = error_type == 1 ? "uncorrected" : "corrected";
  if (location == 2)
    return WithTestEvents(g, Number(device, ("health/ecc/" + kind + (counter_type == 1 ? "_aggregate" : "_volatile")).c_str(), count),
                          error_type == 1, count);
  if (location == 7 && counter_type == 0) return Number(device, ("health/ecc/sram_" + kind + "_volatile").c_str(), count);
  return kNotSupported;
}

// nvml.h's contract, the return list taken literally: pageCount NULL, `addresses` NULL or a cause
// other than MULTIPLE_SINGLE_BIT_ECC_ERRORS 0 / DOUBLE_BIT_ECC_ERROR 1 is INVALID_ARGUMENT (even
// with *pageCount = 0: the parameter line's "set to 0 to query the size" is not what the return
// list says, and the real library is free to follow either); a buffer smaller than the count is
// INSUFFICIENT_SIZE with *pageCount set to the size needed.
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetRetiredPages,
             (nvmlDevice_t device, int cause, unsigned* page_count, unsigned long long* addresses)) {
  if (Check(device) == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (page_count == nullptr || addresses == nullptr || (cause != 0 && cause != 1)) return kInvalidArgument;
  unsigned long long n = 0;
  nvmlReturn_t r = Number(device, cause == 1 ? "health/retired_pages/double_bit" : "health/retired_pages/single_bit", &n);
  if (r != kSuccess) return r;
  if (*page_count < n) {
    *page_count = static_cast<unsigned>(n);
    return kInsufficientSize;
  }
  for (unsigned i = 0; i < n; ++i) addresses[i] = 0x100000ull * (i + 1) + (cause == 1 ? 0x8000000ull : 0);
  *page_count = static_cast<unsigned>(n);
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetRetiredPagesPendingStatus, (nvmlDevice_t device, int* pending)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (g->At("health/retired_pages") == nullptr) return kNotSupported;
  *pending = g->Flag("health/retired_pages/pending") ? 1 : 0;
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetRemappedRows,
             (nvmlDevice_t device, unsigned* corrected, unsigned* uncorrected, unsigned* pending, unsigned* failed)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (g->At("health/remapped_rows") == nullptr) return kNotSupported;  // before Ampere, and GeForce
  *corrected = static_cast<unsigned>(g->Number("health/remapped_rows/corrected"));
  *uncorrected = static_cast<unsigned>(g->Number("health/remapped_rows/uncorrected"));
  *pending = g->Flag("health/remapped_rows/pending") ? 1 : 0;
  *failed = g->Flag("health/remapped_rows/failed") ? 1 : 0;
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetPcieReplayCounter, (nvmlDevice_t device, unsigned* value)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  // A bad riser errs whenever data flows; the first read is gpu.health's idle baseline.
  *value = static_cast<unsigned>(GrowingCounter(*g, "health/pcie_replay"));
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetComputeMode, (nvmlDevice_t device, int* mode)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  const std::string m = g->String("health/compute_mode");
  *mode = m == "exclusive_process" ? 3 : m == "prohibited" ? 2 : m == "exclusive_thread" ? 1 : 0;
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetMigMode, (nvmlDevice_t device, unsigned* current, unsigned* pending)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (g->At("health/mig") == nullptr) return kNotSupported;
  *current = g->Flag("health/mig/current") ? 1 : 0;
  *pending = g->Flag("health/mig/pending") ? 1 : 0;
  return kSuccess;
}

// Other processes: "health/processes" [{pid, used_gib}], else one process holding
// "memory_used_by_others_gib" (the key cuMemGetInfo already honours).
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetComputeRunningProcesses_v3, (nvmlDevice_t device, unsigned* count, ProcessInfo* infos)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (count == nullptr) return kInvalidArgument;
  std::vector<ProcessInfo> list;
  if (const nvsim::json* procs = g->At("health/processes"); procs != nullptr && procs->is_array()) {
    for (const nvsim::json& p : *procs)
      list.push_back({p.at("pid").get<unsigned>(), static_cast<unsigned long long>(p.at("used_gib").get<double>() * (1ull << 30)),
                      0xFFFFFFFF, 0xFFFFFFFF});
  } else if (double gib = g->Number("memory_used_by_others_gib"); gib > 0) {
    list.push_back({4242u, static_cast<unsigned long long>(gib * (1ull << 30)), 0xFFFFFFFF, 0xFFFFFFFF});
  }
  if (*count < list.size()) {
    *count = static_cast<unsigned>(list.size());
    return kInsufficientSize;
  }
  for (size_t i = 0; i < list.size(); ++i) infos[i] = list[i];
  *count = static_cast<unsigned>(list.size());
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetTemperatureThreshold, (nvmlDevice_t device, int threshold, unsigned* celsius)) {
  unsigned long long v = 0;
  nvmlReturn_t r = Number(device, threshold == 1 ? "health/temperature_slowdown_c" : "health/temperature_shutdown_c", &v);
  if (r == kSuccess) *celsius = static_cast<unsigned>(v);
  return r;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetFanSpeed, (nvmlDevice_t device, unsigned* percent)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  unsigned long long v = 0;
  nvmlReturn_t r = Number(device, (std::string("fan_percent/") + LoadState(*g)).c_str(), &v);
  if (r != kSuccess) return r;
  *percent = static_cast<unsigned>(v);
  return kSuccess;
}

// XIDs: "health/xid_events" [numbers] are delivered once to the first event set that registers
// this GPU for nvmlEventTypeXidCriticalError.
NVSIM_EXPORT(nvmlReturn_t, nvmlEventSetCreate, (EventSet** set)) {
  if (!Initialised()) return kUninitialized;
  if (set == nullptr) return kInvalidArgument;
  *set = new EventSet();
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceRegisterEvents, (nvmlDevice_t device, unsigned long long types, EventSet* set)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr || set == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if ((types & kXidEvent) == 0) return kNotSupported;
  static std::set<int> delivered;
  std::lock_guard<std::mutex> lock(EventLock());
  if (const nvsim::json* xids = g->At("health/xid_events"); xids != nullptr && delivered.insert(g->index).second)
    for (const nvsim::json& x : *xids) set->pending.push_back({device, x.get<unsigned long long>()});
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlEventSetWait_v2, (EventSet* set, EventData* data, unsigned timeout_ms)) {
  if (set == nullptr || data == nullptr) return kInvalidArgument;
  {
    std::lock_guard<std::mutex> lock(EventLock());
    if (!set->pending.empty()) {
      *data = {set->pending.front().first, kXidEvent, set->pending.front().second, 0xFFFFFFFF, 0xFFFFFFFF};
      set->pending.erase(set->pending.begin());
      return kSuccess;
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(timeout_ms, 100u)));
  return kTimeout;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlEventSetFree, (EventSet* set)) {
  delete set;
  return kSuccess;
}

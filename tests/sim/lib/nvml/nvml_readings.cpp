// libnvidia-ml.so.1 sim: readings that depend on whether the card is working: PCIe link now,
// temperature, clocks, power draw, clock event (throttle) reasons. Each has an "idle" and a
// "load" value in the profile; the card is under load while simulated work is in progress and
// shortly after (core/timeline.h).
#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "nvml/nvml_internal.h"

using namespace nvmlsim;

namespace {

nvmlReturn_t Reading(nvmlDevice_t device, const std::string& path, unsigned* value) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (value == nullptr) return kInvalidArgument;
  const std::string full = path + "/" + LoadState(*g);
  const nvsim::json* v = g->At(full.c_str());
  if (v == nullptr || !v->is_number()) v = g->At(path.c_str());  // a single number for every state
  if (v == nullptr || !v->is_number() || v->get<double>() < 0) return kNotSupported;
  *value = static_cast<unsigned>(v->get<double>());
  return kSuccess;
}

// nvmlClocksEventReason* bits (NVML API Reference, "Clocks Event Reasons").
unsigned long long ReasonBit(const std::string& name) {
  if (name == "gpu_idle") return 0x1;
  if (name == "applications_clocks_setting") return 0x2;
  if (name == "sw_power_cap") return 0x4;
  if (name == "hw_slowdown") return 0x8;
  if (name == "sync_boost") return 0x10;
  if (name == "sw_thermal_slowdown") return 0x20;
  if (name == "hw_thermal_slowdown") return 0x40;
  if (name == "hw_power_brake_slowdown") return 0x80;
  if (name == "display_clock_setting") return 0x100;
  return 0;
}

unsigned long long Bits(const nvsim::json* list) {
  unsigned long long bits = 0;
  if (list != nullptr && list->is_array())
    for (const nvsim::json& name : *list)
      if (name.is_string()) bits |= ReasonBit(name.get<std::string>());
  return bits;
}

// "clock_event_reasons/transient": {"reasons": [...], "every": N}: under load, these bits are set
// in the first reading and then in one reading out of every N, as nvml.h says HW slowdown "may be
// also reported during PState or clock change". Counted per GPU and per process (each child job
// starts afresh, as a card clocks up again for each).
unsigned long long TransientBits(const nvsim::Gpu& g) {
  const nvsim::json* transient = g.At("clock_event_reasons/transient");
  if (transient == nullptr || !transient->is_object()) return 0;
  static std::mutex mutex;
  static std::map<int, long> reads;
  const long every = std::max(1L, static_cast<long>(g.Number("clock_event_reasons/transient/every")));
  std::lock_guard<std::mutex> lock(mutex);
  const long k = reads[g.index]++;
  return k % every == 0 ? Bits(g.At("clock_event_reasons/transient/reasons")) : 0;
}

nvmlReturn_t Reasons(nvmlDevice_t device, unsigned long long* reasons) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (reasons == nullptr) return kInvalidArgument;
  const std::string state = LoadState(*g);
  const std::string path = "clock_event_reasons/" + state;
  const nvsim::json* list = g->At(path.c_str());
  if (list == nullptr) {
    *reasons = state == "idle" ? 0x1 : 0;
  } else {
    *reasons = Bits(list);
  }
  if (state != "idle") *reasons |= TransientBits(*g);
  return kSuccess;
}

}  // namespace

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetCurrPcieLinkGeneration, (nvmlDevice_t device, unsigned* gen)) {
  return Reading(device, "pcie/gen", gen);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetCurrPcieLinkWidth, (nvmlDevice_t device, unsigned* width)) {
  return Reading(device, "pcie/width", width);
}
// "Maximum PCIe link generation possible with this device and system": the slot included.
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetMaxPcieLinkGeneration, (nvmlDevice_t device, unsigned* gen)) {
  return Reading(device, "pcie/max_gen", gen);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetMaxPcieLinkWidth, (nvmlDevice_t device, unsigned* width)) {
  return Reading(device, "pcie/max_width", width);
}
// What the GPU alone supports, whatever the slot.
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetGpuMaxPcieLinkGeneration, (nvmlDevice_t device, unsigned* gen)) {
  const nvsim::Gpu* g = Check(device);
  if (g != nullptr && g->At("pcie/gpu_max_gen") != nullptr) return Reading(device, "pcie/gpu_max_gen", gen);
  return Reading(device, "pcie/max_gen", gen);
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetTemperature, (nvmlDevice_t device, int sensor, unsigned* celsius)) {
  if (sensor != 0) return kInvalidArgument;  // NVML_TEMPERATURE_GPU only
  return Reading(device, "temperature_c", celsius);
}

struct nvmlTemperature_t {
  unsigned version;
  int sensorType;
  int temperature;
};

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetTemperatureV, (nvmlDevice_t device, nvmlTemperature_t* temperature)) {
  if (temperature == nullptr) return kInvalidArgument;
  if ((temperature->version >> 24) != 1) return kArgumentVersionMismatch;
  if (temperature->sensorType != 0) return kInvalidArgument;
  unsigned celsius = 0;
  nvmlReturn_t r = Reading(device, "temperature_c", &celsius);
  if (r == kSuccess) temperature->temperature = static_cast<int>(celsius);
  return r;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetClockInfo, (nvmlDevice_t device, int type, unsigned* mhz)) {
  switch (type) {  // NVML_CLOCK_GRAPHICS 0, SM 1, MEM 2, VIDEO 3
    case 0:
    case 1: return Reading(device, "clocks_mhz/sm", mhz);
    case 2: return Reading(device, "clocks_mhz/memory", mhz);
    default: return kNotSupported;
  }
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetPowerUsage, (nvmlDevice_t device, unsigned* milliwatts)) {
  unsigned watts = 0;
  nvmlReturn_t r = Reading(device, "power_w", &watts);
  if (r == kSuccess) *milliwatts = watts * 1000;
  return r;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetCurrentClocksEventReasons, (nvmlDevice_t device, unsigned long long* reasons)) {
  return Reasons(device, reasons);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetCurrentClocksThrottleReasons, (nvmlDevice_t device, unsigned long long* reasons)) {
  return Reasons(device, reasons);
}

#include "gpu/health/health_facts.h"

#include <chrono>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "core/units.h"
#include "gpu/bench/clock_event_hold.h"
#include "gpu/health/recovery_action.h"
#include "gpu/nvidia/nvml_library.h"

namespace labcheck::gpu::health {

namespace {

using nlohmann::json;


std::string Why(nvml::nvmlReturn_t result) {
  switch (result) {
    case nvml::kErrorNotSupported: return "not supported by this GPU or driver (NVML_ERROR_NOT_SUPPORTED)";
    case nvml::kErrorNoPermission: return "needs root (NVML_ERROR_NO_PERMISSION)";
    case nvml::kErrorFunctionNotFound: return "this driver's NVML lacks it (NVML_ERROR_FUNCTION_NOT_FOUND)";
    case nvml::kErrorNoData: return "no data yet (NVML_ERROR_NO_DATA)";
    case nvml::kErrorGpuIsLost: return "the GPU is lost (NVML_ERROR_GPU_IS_LOST)";
    default: return fmt::format("NVML error {}", result);
  }
}

const char* ComputeModeName(int mode) {
  switch (mode) {
    case nvml::kComputeModeDefault: return "default";
    case nvml::kComputeModeExclusiveThread: return "exclusive_thread";
    case nvml::kComputeModeProhibited: return "prohibited";
    case nvml::kComputeModeExclusiveProcess: return "exclusive_process";
    default: return "unknown";
  }
}

// Calls `query` when `fn` is bound; its result becomes the field or {"na"}.
template <typename Fn, typename Query>
json Field(Fn* fn, const char* name, Query query) {
  if (fn == nullptr) return MissingFunction(name);
  json value;
  nvml::nvmlReturn_t result = query(value);
  return result == nvml::kSuccess ? value : NotAvailable(name, result);
}

json EccCount(const nvml::NvmlHealthApi& h, nvml::nvmlDevice_t device, int type, int counter) {
  return Field(h.nvmlDeviceGetTotalEccErrors, "nvmlDeviceGetTotalEccErrors", [&](json& out) {
    unsigned long long count = 0;
    nvml::nvmlReturn_t r = h.nvmlDeviceGetTotalEccErrors(device, type, counter, &count);
    out = count;
    return r;
  });
}

// The on-chip SRAM's count (Turing and later): growing correctable SRAM errors come before an
// uncorrectable one (Azure's health checks fail a node on them, NHC2019).
json SramCount(const nvml::NvmlHealthApi& h, nvml::nvmlDevice_t device, int type) {
  return Field(h.nvmlDeviceGetMemoryErrorCounter, "nvmlDeviceGetMemoryErrorCounter", [&](json& out) {
    unsigned long long count = 0;
    nvml::nvmlReturn_t r = h.nvmlDeviceGetMemoryErrorCounter(device, type, nvml::kVolatileEcc, nvml::kMemoryLocationSram, &count);
    out = count;
    return r;
  });
}

// nvml.h: pageCount is the buffer's size going in and the number of pages coming out; a NULL
// `addresses` is NVML_ERROR_INVALID_ARGUMENT, a buffer too small NVML_ERROR_INSUFFICIENT_SIZE with
// pageCount set to the size needed. (The parameter's own line, "set to 0 to query the size
// without allocating", contradicts that return list, so we never rely on it.) A card retires at
// most 64 pages (https://docs.nvidia.com/deploy/dynamic-page-retirement/), so a buffer of 64
// holds them all; one retry with the size the driver asked for covers a driver that counts more.
constexpr unsigned kRetiredPagesCapacity = 64;
constexpr unsigned kRetiredPagesMostWeRead = 1u << 16;  // a nonsense count must not size a huge buffer

json RetiredPages(const nvml::NvmlHealthApi& h, nvml::nvmlDevice_t device, int cause) {
  return Field(h.nvmlDeviceGetRetiredPages, "nvmlDeviceGetRetiredPages", [&](json& out) {
    std::vector<unsigned long long> addresses(kRetiredPagesCapacity);
    unsigned count = static_cast<unsigned>(addresses.size());
    nvml::nvmlReturn_t r = h.nvmlDeviceGetRetiredPages(device, cause, &count, addresses.data());
    if (r == nvml::kErrorInsufficientSize && count > addresses.size() && count <= kRetiredPagesMostWeRead) {
      addresses.resize(count);
      count = static_cast<unsigned>(addresses.size());
      r = h.nvmlDeviceGetRetiredPages(device, cause, &count, addresses.data());
    }
    out = count;
    return r;
  });
}

json UnsignedField(nvml::nvmlReturn_t (*fn)(nvml::nvmlDevice_t, unsigned*), const char* name, nvml::nvmlDevice_t device,
                   double scale = 1) {
  return Field(fn, name, [&](json& out) {
    unsigned value = 0;
    nvml::nvmlReturn_t r = fn(device, &value);
    if (scale == 1) out = value;
    else out = value / scale;
    return r;
  });
}

// In a container's PID namespace the pids are the host's (pid_namespace.h): none is compared with
// our own pid, nor named from our /proc, where it is another process or none. Our own process
// holds no context when these facts are read (the load window creates the contexts later).
json Processes(const nvml::NvmlHealthApi& h, nvml::nvmlDevice_t device, unsigned own_pid, const PidNamespace& pids) {
  return Field(h.nvmlDeviceGetComputeRunningProcesses, "nvmlDeviceGetComputeRunningProcesses_v3", [&](json& out) {
    std::vector<nvml::nvmlProcessInfo_t> infos(64);
    unsigned count = static_cast<unsigned>(infos.size());
    nvml::nvmlReturn_t r = h.nvmlDeviceGetComputeRunningProcesses(device, &count, infos.data());
    if (r == nvml::kErrorInsufficientSize) {  // processes came and went: one retry with room
      infos.resize(count + 16);
      count = static_cast<unsigned>(infos.size());
      r = h.nvmlDeviceGetComputeRunningProcesses(device, &count, infos.data());
    }
    out = json::array();
    if (r != nvml::kSuccess) return r;
    for (unsigned i = 0; i < count && i < infos.size(); ++i) {
      const nvml::nvmlProcessInfo_t& p = infos[i];
      if (pids.host && p.pid == own_pid) continue;
      std::string name = pids.host ? ProcessName(p.pid) : "";
      json entry = {{"pid", p.pid},
                    {"used_gib", p.usedGpuMemory == nvml::kValueNotAvailable ? json(nullptr) : json(p.usedGpuMemory / kBytesPerGiB)},
                    {"name", name.empty() ? json(nullptr) : json(name)}};
      if (!pids.host) entry["host_pid"] = true;
      out.push_back(entry);
    }
    return r;
  });
}

// Clock event reasons at idle from several readings: one reading can catch a P-state change,
// during which nvml.h says HW slowdown may be set; only reasons that hold over the readings
// (bench/clock_event_hold.h) go into "clock_event_reasons_idle", the rest are listed apart.
constexpr int kIdleReasonReadings = 5;
constexpr int kIdleReasonPauseMs = 20;  // the NVML sampler's period

void IdleReasons(const nvml::NvmlApi& b, nvml::nvmlDevice_t device, json& f) {
  f["clock_event_reasons_idle"] =
      Field(b.nvmlDeviceGetCurrentClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons", [&](json& out) {
        ReasonTally tally;
        nvml::nvmlReturn_t last = nvml::kSuccess;
        for (int i = 0; i < kIdleReasonReadings; ++i) {
          if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(kIdleReasonPauseMs));
          unsigned long long reasons = 0;
          last = b.nvmlDeviceGetCurrentClocksEventReasons(device, &reasons);
          if (last == nvml::kSuccess) tally.Add(reasons);
        }
        if (tally.samples == 0) return last;
        out = IdleReasonNames(tally.Held());
        f["clock_event_reasons_idle_transient"] = IdleReasonNames(tally.Seen() & ~tally.Held());
        return nvml::kSuccess;
      });
}

}  // namespace

json NotAvailable(const std::string& function, nvml::nvmlReturn_t result) {
  return {{"na", Why(result)}, {"function", function}};
}

json MissingFunction(const std::string& function) {
  return {{"na", "this driver's NVML has no " + function}, {"function", function}};
}

bool IsNotAvailable(const json& field) { return field.is_object() && field.contains("na"); }

std::string ProcessName(unsigned pid, const std::string& proc_root) {
  std::ifstream in(proc_root + "/" + std::to_string(pid) + "/comm");
  std::string name;
  if (!in || !std::getline(in, name)) return "";
  return name;
}

std::vector<std::string> IdleReasonNames(unsigned long long reasons) {
  std::vector<std::string> names;
  if (reasons & nvml::kClockEventGpuIdle) names.emplace_back("idle");
  for (const std::string& n : ClockEventReasonNames(reasons)) names.push_back(n);
  return names;
}

json ReadIdleFacts(const NvmlTables& nvml, nvml::nvmlDevice_t device, unsigned own_pid, const PidNamespace& pids) {
  static const nvml::NvmlHealthApi kNone{};
  const nvml::NvmlApi& b = *nvml.base;
  const nvml::NvmlHealthApi& h = nvml.health != nullptr ? *nvml.health : kNone;
  json f = json::object();

  f["ecc_mode"] = Field(b.nvmlDeviceGetEccMode, "nvmlDeviceGetEccMode", [&](json& out) {
    nvml::nvmlEnableState_t current = 0, pending = 0;
    nvml::nvmlReturn_t r = b.nvmlDeviceGetEccMode(device, &current, &pending);
    out = current == nvml::kFeatureEnabled;
    return r;
  });
  f["ecc_uncorrected_volatile"] = EccCount(h, device, nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc);
  f["ecc_uncorrected_aggregate"] = EccCount(h, device, nvml::kMemoryErrorUncorrected, nvml::kAggregateEcc);
  f["ecc_corrected_volatile"] = EccCount(h, device, nvml::kMemoryErrorCorrected, nvml::kVolatileEcc);
  f["ecc_corrected_aggregate"] = EccCount(h, device, nvml::kMemoryErrorCorrected, nvml::kAggregateEcc);
  f["sram_corrected_volatile"] = SramCount(h, device, nvml::kMemoryErrorCorrected);
  f["sram_uncorrected_volatile"] = SramCount(h, device, nvml::kMemoryErrorUncorrected);
  f["retired_pages_single_bit"] = RetiredPages(h, device, nvml::kPageRetirementMultipleSingleBit);
  f["retired_pages_double_bit"] = RetiredPages(h, device, nvml::kPageRetirementDoubleBit);
  f["retired_pages_pending"] = Field(h.nvmlDeviceGetRetiredPagesPendingStatus, "nvmlDeviceGetRetiredPagesPendingStatus",
                                     [&](json& out) {
                                       nvml::nvmlEnableState_t pending = 0;
                                       nvml::nvmlReturn_t r = h.nvmlDeviceGetRetiredPagesPendingStatus(device, &pending);
                                       out = pending == nvml::kFeatureEnabled;
                                       return r;
                                     });
  f["recovery_action"] = ReadRecoveryAction(h, device);
  f["remapped_rows"] = Field(h.nvmlDeviceGetRemappedRows, "nvmlDeviceGetRemappedRows", [&](json& out) {
    unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
    nvml::nvmlReturn_t r = h.nvmlDeviceGetRemappedRows(device, &corrected, &uncorrected, &pending, &failed);
    out = {{"corrected", corrected}, {"uncorrected", uncorrected}, {"pending", pending != 0}, {"failed", failed != 0}};
    return r;
  });
  f["pcie_replay_count"] = UnsignedField(h.nvmlDeviceGetPcieReplayCounter, "nvmlDeviceGetPcieReplayCounter", device);
  f["pcie_gen_max"] = UnsignedField(b.nvmlDeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration", device);
  f["pcie_width_max"] = UnsignedField(b.nvmlDeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth", device);
  f["persistence_mode"] = Field(b.nvmlDeviceGetPersistenceMode, "nvmlDeviceGetPersistenceMode", [&](json& out) {
    nvml::nvmlEnableState_t mode = 0;
    nvml::nvmlReturn_t r = b.nvmlDeviceGetPersistenceMode(device, &mode);
    out = mode == nvml::kFeatureEnabled;
    return r;
  });
  f["power_limit_w"] = UnsignedField(b.nvmlDeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit", device, 1000.0);
  f["power_default_limit_w"] = UnsignedField(h.nvmlDeviceGetPowerManagementDefaultLimit,
                                             "nvmlDeviceGetPowerManagementDefaultLimit", device, 1000.0);
  f["compute_mode"] = Field(h.nvmlDeviceGetComputeMode, "nvmlDeviceGetComputeMode", [&](json& out) {
    int mode = 0;
    nvml::nvmlReturn_t r = h.nvmlDeviceGetComputeMode(device, &mode);
    out = ComputeModeName(mode);
    return r;
  });
  f["mig_mode"] = Field(h.nvmlDeviceGetMigMode, "nvmlDeviceGetMigMode", [&](json& out) {
    unsigned current = 0, pending = 0;
    nvml::nvmlReturn_t r = h.nvmlDeviceGetMigMode(device, &current, &pending);
    out = {{"current", current == nvml::kMigEnabled}, {"pending", pending == nvml::kMigEnabled}};
    return r;
  });
  f["other_processes"] = Processes(h, device, own_pid, pids);
  f["pid_namespace"] = PidNamespaceJson(pids);
  IdleReasons(b, device, f);
  f["temperature_c"] = Field(b.nvmlDeviceGetTemperature, "nvmlDeviceGetTemperature", [&](json& out) {
    unsigned celsius = 0;
    nvml::nvmlReturn_t r = b.nvmlDeviceGetTemperature(device, nvml::kTemperatureGpu, &celsius);
    out = celsius;
    return r;
  });
  f["temperature_slowdown_c"] =
      Field(h.nvmlDeviceGetTemperatureThreshold, "nvmlDeviceGetTemperatureThreshold", [&](json& out) {
        unsigned celsius = 0;
        nvml::nvmlReturn_t r = h.nvmlDeviceGetTemperatureThreshold(device, nvml::kTemperatureThresholdSlowdown, &celsius);
        out = celsius;
        return r;
      });
  return f;
}

}  // namespace labcheck::gpu::health

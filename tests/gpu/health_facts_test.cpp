// ReadIdleFacts against a fake NVML table: values where the driver answers, {"na": why} where it
// returns NOT_SUPPORTED or NO_PERMISSION or lacks the function, and never anything else.
#include <gtest/gtest.h>

#include <unistd.h>

#include "gpu/health/health_facts.h"

namespace labcheck::gpu::health {
namespace {

using nlohmann::json;
namespace n = nvml;

n::nvmlDevice_t Device() { return reinterpret_cast<n::nvmlDevice_t>(0x1); }

struct Fake {
  static inline unsigned long long uncorrected_volatile = 0;
};

n::NvmlApi BaseApi() {
  n::NvmlApi a;
  a.nvmlDeviceGetEccMode = [](n::nvmlDevice_t, n::nvmlEnableState_t* c, n::nvmlEnableState_t* p) {
    *c = *p = n::kFeatureEnabled;
    return n::kSuccess;
  };
  a.nvmlDeviceGetPersistenceMode = [](n::nvmlDevice_t, n::nvmlEnableState_t* m) { *m = 0; return n::kSuccess; };
  a.nvmlDeviceGetEnforcedPowerLimit = [](n::nvmlDevice_t, unsigned* mw) { *mw = 250000; return n::kSuccess; };
  a.nvmlDeviceGetTemperature = [](n::nvmlDevice_t, int, unsigned* c) { *c = 41; return n::kSuccess; };
  a.nvmlDeviceGetCurrentClocksEventReasons = [](n::nvmlDevice_t, unsigned long long* r) {
    *r = n::kClockEventGpuIdle | n::kClockEventHwSlowdown;
    return n::kSuccess;
  };
  a.nvmlDeviceGetMaxPcieLinkGeneration = [](n::nvmlDevice_t, unsigned* g) { *g = 4; return n::kSuccess; };
  a.nvmlDeviceGetMaxPcieLinkWidth = [](n::nvmlDevice_t, unsigned* w) { *w = 16; return n::kSuccess; };
  return a;
}

n::NvmlHealthApi HealthApi() {
  n::NvmlHealthApi h;
  h.nvmlDeviceGetTotalEccErrors = [](n::nvmlDevice_t, int type, int counter, unsigned long long* count) {
    *count = type == n::kMemoryErrorUncorrected && counter == n::kVolatileEcc ? Fake::uncorrected_volatile : 7;
    return n::kSuccess;
  };
  h.nvmlDeviceGetRetiredPages = [](n::nvmlDevice_t, int, unsigned*, unsigned long long*) { return n::kErrorNotSupported; };
  h.nvmlDeviceGetRemappedRows = [](n::nvmlDevice_t, unsigned* c, unsigned* u, unsigned* p, unsigned* f) {
    *c = 2, *u = 1, *p = 1, *f = 0;
    return n::kSuccess;
  };
  h.nvmlDeviceGetPcieReplayCounter = [](n::nvmlDevice_t, unsigned* v) { *v = 12; return n::kSuccess; };
  h.nvmlDeviceGetPowerManagementDefaultLimit = [](n::nvmlDevice_t, unsigned* mw) { *mw = 320000; return n::kSuccess; };
  h.nvmlDeviceGetComputeMode = [](n::nvmlDevice_t, int* m) { *m = n::kComputeModeExclusiveProcess; return n::kSuccess; };
  h.nvmlDeviceGetMigMode = [](n::nvmlDevice_t, unsigned*, unsigned*) { return n::kErrorNoPermission; };
  h.nvmlDeviceGetComputeRunningProcesses = [](n::nvmlDevice_t, unsigned* count, n::nvmlProcessInfo_t* infos) {
    if (*count < 2) {
      *count = 2;
      return n::kErrorInsufficientSize;
    }
    infos[0] = {static_cast<unsigned>(getpid()), 1ull << 30, 0, 0};  // ourselves: left out
    infos[1] = {1, 20ull << 30, 0, 0};                                // pid 1 holding 20 GiB
    *count = 2;
    return n::kSuccess;
  };
  h.nvmlDeviceGetTemperatureThreshold = [](n::nvmlDevice_t, int which, unsigned* c) {
    *c = which == n::kTemperatureThresholdSlowdown ? 87 : 95;
    return n::kSuccess;
  };
  return h;
}

TEST(HealthFacts, ReadsEveryFieldOrSaysWhyNot) {
  const n::NvmlApi base = BaseApi();
  const n::NvmlHealthApi health = HealthApi();
  Fake::uncorrected_volatile = 3;
  const json f = ReadIdleFacts({&base, &health}, Device(), static_cast<unsigned>(getpid()));
  EXPECT_EQ(f["ecc_mode"], true);
  EXPECT_EQ(f["ecc_uncorrected_volatile"], 3);
  EXPECT_EQ(f["ecc_corrected_aggregate"], 7);
  EXPECT_TRUE(IsNotAvailable(f["retired_pages_single_bit"]));
  EXPECT_NE(f["retired_pages_single_bit"]["na"].get<std::string>().find("NOT_SUPPORTED"), std::string::npos);
  EXPECT_TRUE(IsNotAvailable(f["retired_pages_pending"]));  // the function is missing from the table
  EXPECT_NE(f["retired_pages_pending"]["na"].get<std::string>().find("nvmlDeviceGetRetiredPagesPendingStatus"), std::string::npos);
  EXPECT_EQ(f["remapped_rows"], json({{"corrected", 2}, {"uncorrected", 1}, {"pending", true}, {"failed", false}}));
  EXPECT_EQ(f["pcie_replay_count"], 12);
  EXPECT_EQ(f["pcie_gen_max"], 4);
  EXPECT_EQ(f["persistence_mode"], false);
  EXPECT_DOUBLE_EQ(f["power_limit_w"].get<double>(), 250);
  EXPECT_DOUBLE_EQ(f["power_default_limit_w"].get<double>(), 320);
  EXPECT_EQ(f["compute_mode"], "exclusive_process");
  EXPECT_NE(f["mig_mode"]["na"].get<std::string>().find("root"), std::string::npos);
  ASSERT_EQ(f["other_processes"].size(), 1u);
  EXPECT_EQ(f["other_processes"][0]["pid"], 1);
  EXPECT_DOUBLE_EQ(f["other_processes"][0]["used_gib"].get<double>(), 20);
  EXPECT_EQ(f["clock_event_reasons_idle"], json({"idle", "hw_slowdown"}));
  EXPECT_EQ(f["temperature_c"], 41);
  EXPECT_EQ(f["temperature_slowdown_c"], 87);
}

TEST(HealthFacts, WithoutTheHealthTableEveryHealthFieldIsNotAvailable) {
  const n::NvmlApi base = BaseApi();
  const json f = ReadIdleFacts({&base, nullptr}, Device(), 0);
  for (const char* key : {"ecc_uncorrected_volatile", "retired_pages_double_bit", "remapped_rows", "pcie_replay_count",
                          "power_default_limit_w", "compute_mode", "mig_mode", "other_processes", "temperature_slowdown_c"})
    EXPECT_TRUE(IsNotAvailable(f[key])) << key;
  EXPECT_EQ(f["temperature_c"], 41);
}

// nvmlDeviceGetRetiredPages as nvml.h's return list states it: NULL pageCount or addresses is
// INVALID_ARGUMENT, a buffer smaller than the count INSUFFICIENT_SIZE with the size needed.
struct StrictRetiredPages {
  static inline unsigned single_bit = 0, double_bit = 0;
  static inline int calls = 0;
  static n::nvmlReturn_t Get(n::nvmlDevice_t, int cause, unsigned* count, unsigned long long* addresses) {
    ++calls;
    if (count == nullptr || addresses == nullptr || (cause != n::kPageRetirementMultipleSingleBit && cause != n::kPageRetirementDoubleBit))
      return n::kErrorInvalidArgument;
    const unsigned pages = cause == n::kPageRetirementDoubleBit ? double_bit : single_bit;
    if (*count < pages) {
      *count = pages;
      return n::kErrorInsufficientSize;
    }
    for (unsigned i = 0; i < pages; ++i) addresses[i] = 0x1000ull * (i + 1);
    *count = pages;
    return n::kSuccess;
  }
};

TEST(HealthFacts, RetiredPagesAreReadIntoARealBuffer) {
  const n::NvmlApi base = BaseApi();
  n::NvmlHealthApi health = HealthApi();
  health.nvmlDeviceGetRetiredPages = StrictRetiredPages::Get;
  StrictRetiredPages::single_bit = 3;
  StrictRetiredPages::double_bit = 1;
  json f = ReadIdleFacts({&base, &health}, Device(), 0);
  EXPECT_EQ(f["retired_pages_single_bit"], 3) << f["retired_pages_single_bit"].dump();
  EXPECT_EQ(f["retired_pages_double_bit"], 1) << f["retired_pages_double_bit"].dump();
  // None retired: still a count of 0, not INVALID_ARGUMENT.
  StrictRetiredPages::single_bit = StrictRetiredPages::double_bit = 0;
  f = ReadIdleFacts({&base, &health}, Device(), 0);
  EXPECT_EQ(f["retired_pages_single_bit"], 0) << f["retired_pages_single_bit"].dump();
  // More than the first buffer holds (a driver past the 64-page limit): one retry with the size asked.
  StrictRetiredPages::double_bit = 100;
  StrictRetiredPages::calls = 0;
  f = ReadIdleFacts({&base, &health}, Device(), 0);
  EXPECT_EQ(f["retired_pages_double_bit"], 100) << f["retired_pages_double_bit"].dump();
  EXPECT_EQ(StrictRetiredPages::calls, 3);  // single-bit once, double-bit twice
}

// nvml.h: HW slowdown "may be also reported during PState or clock change". A card settling into
// idle sets it for one reading: not a slowdown at idle.
TEST(HealthFacts, AClockEventReasonReadOnceAtIdleIsTransient) {
  n::NvmlApi base = BaseApi();
  static int reads = 0;
  reads = 0;
  base.nvmlDeviceGetCurrentClocksEventReasons = [](n::nvmlDevice_t, unsigned long long* r) {
    *r = n::kClockEventGpuIdle | (reads++ == 0 ? n::kClockEventHwSlowdown : 0);
    return n::kSuccess;
  };
  const json f = ReadIdleFacts({&base, nullptr}, Device(), 0);
  EXPECT_EQ(f["clock_event_reasons_idle"], json({"idle"}));
  EXPECT_EQ(f["clock_event_reasons_idle_transient"], json({"hw_slowdown"}));
  EXPECT_GE(reads, 2);
}

// Issue 42: in a container's PID namespace NVML's pids are the host's: none is named from this
// /proc (pid 1 here is the container's init, not the host's process) nor taken for our own.
TEST(HealthFacts, HostPidsAreNotNamedFromAContainer) {
  const n::NvmlApi base = BaseApi();
  const n::NvmlHealthApi health = HealthApi();
  const PidNamespace container{"pid:[4026532513]", false};
  const json f = ReadIdleFacts({&base, &health}, Device(), 1, container);
  ASSERT_EQ(f["other_processes"].size(), 2u) << f["other_processes"];
  for (const json& p : f["other_processes"]) {
    EXPECT_EQ(p["name"], nullptr) << p;
    EXPECT_EQ(p["host_pid"], true) << p;
  }
  EXPECT_EQ(f["pid_namespace"], json({{"link", "pid:[4026532513]"}, {"host", false}}));

  const json on_host = ReadIdleFacts({&base, &health}, Device(), 1, PidNamespace{"pid:[4026531836]", true});
  ASSERT_EQ(on_host["other_processes"].size(), 1u);  // pid 1 is ours there
  EXPECT_FALSE(on_host["other_processes"][0].contains("host_pid"));
}

TEST(HealthFacts, ProcessNameComesFromProcComm) {
  EXPECT_FALSE(ProcessName(static_cast<unsigned>(getpid())).empty());
  EXPECT_EQ(ProcessName(1u << 30), "");  // no such process
}

}  // namespace
}  // namespace labcheck::gpu::health

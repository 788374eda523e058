// What gpu.health reads from NVML about one GPU, as plain JSON facts: every field is its value
// or {"na": "why"} (the driver does not support it, needs root, or lacks the function), never an
// error. The child job (jobs/health_job.cpp) collects them; health_verdicts.h judges them, so tests
// drive every verdict with a fake NVML table or hand-written facts.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/nvidia/nvml_api.h"
#include "gpu/health/pid_namespace.h"
#include "gpu/nvidia/nvml_health_api.h"

namespace labcheck::gpu::health {

struct NvmlTables {
  const nvml::NvmlApi* base = nullptr;
  const nvml::NvmlHealthApi* health = nullptr;
};

// {"na": why} for a failed or missing query; `function` names the NVML call.
nlohmann::json NotAvailable(const std::string& function, nvml::nvmlReturn_t result);
nlohmann::json MissingFunction(const std::string& function);
bool IsNotAvailable(const nlohmann::json& field);

// The facts that do not need a load: ECC, retired pages, remapping, replay counter (start value),
// persistence, power limits, compute and MIG mode, other processes (excluding `own_pid`; in a
// container's PID namespace, `pids`, they are host pids, left unnamed and marked "host_pid"), clock
// event reasons and temperature at idle, the slowdown threshold, the maximum PCIe link.
nlohmann::json ReadIdleFacts(const NvmlTables& nvml, nvml::nvmlDevice_t device, unsigned own_pid,
                             const PidNamespace& pids = {});

// The name of a process from /proc/PID/comm; empty when unreadable (another user's, hidepid).
std::string ProcessName(unsigned pid, const std::string& proc_root = "/proc");

// Clock event reasons as names including "idle" (ClockEventReasonNames drops it).
std::vector<std::string> IdleReasonNames(unsigned long long reasons);

}  // namespace labcheck::gpu::health

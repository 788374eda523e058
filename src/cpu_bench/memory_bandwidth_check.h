// cpu.memory_bandwidth: STREAM copy and triad over all CPUs, against the bandwidth the installed
// memory modules promise where SMBIOS can be read. Assessment is a pure function of the run.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "core/check_result.h"
#include "cpu_bench/machine_load.h"
#include "cpu_bench/memory_modules.h"
#include "cpu_bench/stream_bench.h"
#include "runner/check.h"

namespace labcheck::cpu_bench {

struct MemoryBandwidthInputs {
  StreamPlan plan;
  StreamRun run;
  std::optional<uint64_t> llc_bytes;
  std::optional<MemoryPeak> peak;
  Text peak_unavailable;     // why there is no peak, for the report
  std::string peak_detail;  // the system's message behind it, for the JSON
  bool virtualized = false;
  MachineLoad load;
};

CheckResult AssessMemoryBandwidth(const MemoryBandwidthInputs& inputs);
CheckResult RunMemoryBandwidthCheck(CheckContext& ctx);

}  // namespace labcheck::cpu_bench

// The processor as Linux describes it: model, topology and instruction-set flags, parsed from
// /proc/cpuinfo (x86 and ARM formats) with /sys for what cpuinfo may lack (maximum clock, NUMA).
#pragma once
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace labcheck::env {

struct CpuInfo {
  std::string model;   // "AMD EPYC 7H43 64-Core Processor"; "unknown" when cpuinfo names none
  std::string vendor;  // "GenuineIntel", "AuthenticAMD"; empty on ARM
  int family = -1;     // x86 "cpu family" (AMD Zen 4 = 25, Zen 5 = 26); -1 when absent
  int model_number = -1;
  int sockets = 0;   // distinct "physical id"s
  int cores = 0;     // distinct (physical id, core id) pairs: physical cores
  int threads = 0;   // "processor" entries: logical CPUs
  std::set<std::string> flags;              // x86 "flags" or ARM "Features"
  std::optional<double> current_mhz;        // highest "cpu MHz" (x86 only; a snapshot, not a limit)
  std::optional<double> max_mhz;            // highest cpufreq cpuinfo_max_freq of any core, filled by ReadCpuInfo
  int numa_nodes = 1;                       // filled by ReadCpuInfo from /sys/devices/system/node

  bool Has(const std::string& flag) const { return flags.count(flag) > 0; }
  // Running under a hypervisor: vCPU counts and clocks are what the host chose to show.
  bool virtualized() const { return Has("hypervisor"); }
};

// Parses /proc/cpuinfo. When "physical id"/"core id" are missing (ARM, some VMs), each logical CPU
// counts as one core in one socket: an upper bound that ReadCpuInfo refines from sysfs.
Result<CpuInfo> ParseCpuInfo(std::string_view cpuinfo);

// Parses a kernel CPU or node list ("0-3,8,10-11") into its members; an error for malformed text.
Result<std::vector<int>> ParseIdList(std::string_view list);

// One logical CPU's place as sysfs reports it (topology/physical_package_id, topology/core_id).
struct CpuPlace {
  int package_id = 0;
  int core_id = 0;
};
// Counts sockets and physical cores from sysfs topology entries (for cpuinfo without them).
void ApplyTopology(const std::vector<CpuPlace>& places, CpuInfo& info);

// Reads this machine: /proc/cpuinfo, then cpufreq and NUMA nodes from /sys. `root` is prefixed to
// every path (tests pass a fake tree; empty: the real one).
Result<CpuInfo> ReadCpuInfo(const std::string& root = "");

}  // namespace labcheck::env

// Whether other work competed for the CPUs while a benchmark ran: a busy machine measures low, and
// the report should say so rather than blame the hardware. Read from /proc/loadavg.
#pragma once
#include <optional>
#include <string_view>

#include "core/text.h"

namespace labcheck::cpu_bench {

// The 1-minute load average, the first field of /proc/loadavg ("8.46 9.35 8.23 3/456 23514").
std::optional<double> ParseLoadAverage(std::string_view loadavg);

struct MachineLoad {
  std::optional<double> load_1min;  // read just before the measurement
  int cpus = 1;                     // CPUs the benchmark used

  // More than half the CPUs' worth of runnable work besides ours: the figures are low.
  bool busy() const { return load_1min && *load_1min > 0.5 * cpus; }
  Text Note() const;  // empty when not busy

  static MachineLoad Now(int cpus);
};

}  // namespace labcheck::cpu_bench

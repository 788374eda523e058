// Which training speed to assume, best source first: the user's --tflops, the last report's
// measured Llama training TFLOPS, the reference datasheet of this GPU scaled as the course
// scales the RTX 4080, or the course's own 20–40 TFLOPS. Every result says which it used.
#pragma once
#include <optional>
#include <string>

#include "calc/calc_constants.h"
#include "calc/machine_report.h"
#include "calc/training_cost.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {

Throughput ResolveThroughput(std::optional<double> tflops_flag, const MachineReport* report,
                             const reference::GpuSpec* gpu, const CalcConstants& constants);

struct Bandwidth {
  double busbw_gbps = 0;
  Text source;
};
Bandwidth ResolveAllreduceBandwidth(const MachineReport* report, const CalcConstants& constants);

}  // namespace labcheck::calc

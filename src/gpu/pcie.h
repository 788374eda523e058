// PCIe arithmetic: the one-direction limit of a link after line encoding (8b/10b for gens 1–2,
// 128b/130b for 3–5, FLIT for 6), before protocol overhead; and the seed's rule that host↔device
// copies near half of the link's limit mean "PCIe 3.0 or x8: check the slot, the riser, the BIOS".
#pragma once
#include <optional>
#include <string>

#include "core/text.h"

namespace labcheck::gpu {

// GB/s (10^9 B/s) one direction; 0 for an unknown generation or width.
double PcieLimitGbps(int generation, int width);

struct PcieAssessment {
  bool slow = false;  // the measured copy or the link in use says "degraded link"
  Text finding;       // what was seen, when slow
  Text hint;
};

// measured_gbps: pinned host→device; max_gen/max_width: what the GPU and slot can do (NVML's
// "max"); gen_under_load/width_under_load: the link while copying (links idle at lower gens).
PcieAssessment AssessPcie(double measured_gbps, int max_gen, int max_width, std::optional<int> gen_under_load,
                          std::optional<int> width_under_load);

}  // namespace labcheck::gpu

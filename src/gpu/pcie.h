// The seed's rule that host↔device copies near half of the link's limit mean "PCIe 3.0 or x8:
// check the slot, the riser, the BIOS". The limit comes from reference/pcie_link.h and the hint
// from the course's table (reference/hints.h, hint::kPcieGen3): neither is retyped here.
#pragma once
#include <optional>

#include "core/text.h"

namespace labcheck::gpu {

struct PcieAssessment {
  bool slow = false;  // the measured copy or the link in use says "degraded link"
  Text finding;       // what was seen, when slow
  Text hint;
};

// measured_gbps: pinned host→device; max_gen/max_width: what the GPU and slot can do (NVML's
// "max"); gen_under_load/width_under_load: the link while copying (links idle at lower gens),
// nullopt when no NVML sample was taken while the copy ran: then only the figure is judged.
PcieAssessment AssessPcie(double measured_gbps, int max_gen, int max_width, std::optional<int> gen_under_load,
                          std::optional<int> width_under_load);

}  // namespace labcheck::gpu

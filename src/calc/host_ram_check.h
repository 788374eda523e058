// Offloaded training needs CPU RAM as well as GPU memory: this sets the host RAM the offloaded state
// takes (training_memory.h: host_ram_bytes, and with DeepSpeed's estimator margin) beside the RAM
// the last lab_check report measured on this machine (env.system, /proc/meminfo MemTotal).
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "calc/machine_report.h"
#include "calc/training_memory.h"
#include "core/text.h"

namespace labcheck::calc {

// One sentence for the text report; nothing when nothing is offloaded. `report` may be null (no
// readable report) or hold no RAM figure: the sentence then says so and how to measure it.
std::optional<Text> HostRamVerdict(const TrainingMemory& memory, const MachineReport* report);

// {"report": path or null, "measured_total": bytes or null, "fits": bool or null,
//  "fits_with_margin": bool or null}; null when nothing is offloaded.
nlohmann::json HostRamReportJson(const TrainingMemory& memory, const MachineReport* report);

}  // namespace labcheck::calc

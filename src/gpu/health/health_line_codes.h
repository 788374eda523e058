// The finding code (data/finding_codes.json) of a gpu.health line that is not PASS: the same code
// node-check gives the same fact, so the lab's report and the cluster's gate name a fault alike
// ("LC204" for a row remap pending a reset). Empty for lines node-check has no finding for
// (temperature, clock events at idle) and for PASS and N/A lines.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gpu/health/health_verdicts.h"

namespace labcheck::gpu::health {

// `facts`: the card's facts the line was judged on (pending flags, the XIDs of its log).
std::string FindingCodeOfLine(const HealthLine& line, const nlohmann::json& facts);

}  // namespace labcheck::gpu::health

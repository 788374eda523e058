// The finding code (data/finding_codes.json) of a gpu.health line that is not PASS: the same code
// node-check gives the same fact, so the lab's report and the cluster's gate name a fault alike
// ("LC204" for a row remap pending a reset). Empty for lines node-check has no finding for
// (temperature, clock events at idle) and for PASS and N/A lines.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "gpu/health/health_verdicts.h"

namespace labcheck::gpu::health {

// node-check's finding key (data/finding_codes.json "key") for a line that is not PASS: a FAIL of
// remapped_rows is "row_remap_failed", a WARN with a remap pending "remapped_rows_pending", and so
// on; empty where node-check has no finding for it. `facts`: the card's facts the line was judged
// on (pending flags, the XIDs of its log).
std::string FindingKeyOfLine(const HealthLine& line, const nlohmann::json& facts);
// The code of that key ("LC204"), or empty.
std::string FindingCodeOfLine(const HealthLine& line, const nlohmann::json& facts);

}  // namespace labcheck::gpu::health

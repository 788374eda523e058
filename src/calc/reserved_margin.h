// What published FSDP1 runs reserved beyond lab_check's reserved figure (issue 40). Every FSDP1
// reserved peak the tests hold came out above the estimate (data/models/calculator_constants.json,
// fsdp1_reserved_checks, recomputed from tests/calc/published_cases.json by a test). The estimate
// is not scaled by it: the ratio is evidence, not a model. vram prints it beside the estimate, with
// the per-GPU figure the largest ratio seen would give, so a user can leave that headroom.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "calc/calc_constants.h"
#include "calc/training_memory.h"
#include "calc/training_settings.h"
#include "core/text.h"

namespace labcheck::calc {

struct ReservedMargin {
  int runs = 0;               // published FSDP1 reserved peaks checked
  double ratio_median = 0;    // measured / lab_check's reserved figure
  double ratio_max = 0;
  double per_gpu_at_max = 0;  // lab_check's reserved figure x ratio_max, plus the CUDA context
};

// FSDP1 FULL_SHARD (reshard after forward) over several GPUs: where the evidence is.
bool Fsdp1MarginApplies(const TrainingSettings& settings);

// Only where Fsdp1MarginApplies and the estimate is detailed.
std::optional<ReservedMargin> PublishedReservedMargin(const TrainingSettings& settings, const TrainingMemory& memory,
                                                      const CalcConstants& constants);

Text ReservedMarginNote(const ReservedMargin& margin, const CalcConstants& constants);

// {"runs", "ratio_median", "ratio_max", "per_gpu_at_max": bytes}, or null when it does not apply.
nlohmann::json ReservedMarginJson(const std::optional<ReservedMargin>& margin);

}  // namespace labcheck::calc

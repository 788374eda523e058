// The rules of thumb of the course's lesson 3 (section «1. Математика VRAM»), computed beside
// the detailed estimate, and a sentence on where and why the two differ.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "calc/training_memory.h"
#include "calc/training_settings.h"
#include "core/text.h"

namespace labcheck::calc {

struct RuleOfThumb {
  std::optional<double> bytes;  // nullopt: the lesson has no rule for this method (LoRA)
  Text formula;                 // "7.24 B × 2 bytes × 4 = 57.9 GB"
  Text comparison;              // where and why the detailed estimate differs
};

// Full fine-tuning: params x 2 bytes x 4. QLoRA: params x 0.5 bytes + adapter + ~2 GB.
// `memory` is the detailed estimate for the same settings (for the comparison).
RuleOfThumb LessonRuleOfThumb(const ModelInput& model, const TrainingSettings& settings,
                              const TrainingMemory& memory, const CalcConstants& constants);

nlohmann::json RuleOfThumbJson(const RuleOfThumb& rule, Lang lang);

}  // namespace labcheck::calc

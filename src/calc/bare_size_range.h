// A bare size ("7B") has no architecture, so activations, logits and adapters cannot be counted.
// Rather than no total, give a range: the same settings on the catalog's dense text models of a
// similar size, each scaled to the asked size, lowest to highest, with the models named.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "calc/calc_constants.h"
#include "calc/model_catalog.h"
#include "calc/model_input.h"
#include "calc/training_settings.h"

namespace labcheck::calc {

struct SizeRange {
  double low_bytes = 0;   // needed per GPU (peak total), the smallest of the shapes
  double high_bytes = 0;  // the largest
  double low_allocated = 0;
  double high_allocated = 0;
  std::vector<std::string> shapes;  // catalog names the range was computed on
};

// nullopt when the model has an architecture (then there is an exact estimate).
std::optional<SizeRange> BareSizeRange(const ModelInput& model, const TrainingSettings& settings,
                                       const ModelCatalog& catalog, const CalcConstants& constants);

}  // namespace labcheck::calc

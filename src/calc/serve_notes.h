// The assumption lines of `lab_check serve`: which vLLM rule and version, what vLLM chose for the
// card, and how it lays out MoE, hybrid and sliding-window models. Apart from the command so that
// the command file keeps to reading options and printing.
#pragma once
#include <optional>
#include <vector>

#include "calc/model_features.h"
#include "calc/model_input.h"
#include "calc/serving.h"
#include "calc/vllm_profile.h"

namespace labcheck::calc {

// Where the vLLM version came from: the flag, the chosen Python, or the default.
enum class VersionSource { Flag, Installed, Default };

std::vector<WorkNote> ServeAssumptions(const ModelInput& model, const ServePlan& plan, const ServeSettings& s, VersionSource source);
// On a card before Hopper, MXFP4 experts padded for the Marlin kernel; nullopt elsewhere.
std::optional<WorkNote> MarlinPaddingNote(const ModelInput& model, const ServePlan& plan, const ServeSettings& s);
// How the hybrid block pool is shared, under the TP table; empty without state layers.
Text HybridPoolNote(const ServePlan& plan);
// vLLM's default --gpu-memory-utilization per version span, from data/vllm_profiles.json.
Text DefaultUtilizationSpans();
WorkNote DefaultUtilizationNote(const VllmProfileChoice& p);

}  // namespace labcheck::calc

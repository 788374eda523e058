// What `serve` says about the evidence behind its figures: how many published vLLM start-up logs
// of the user's card and vLLM version the profile rule was checked against (data/vllm_profiles.json,
// checked_logs). The share of a card's memory that is not KV cache (non-torch memory, the profile
// run's peak, vLLM's batch defaults) differs by card, so a rule checked on one card is an
// assumption on another, and the note says so.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "calc/model_features.h"
#include "calc/vllm_profile.h"

namespace labcheck::calc {

// gpu_id: an id of data/gpus.json, empty when the card is not known (only --gpu-mem given).
WorkNote CheckedLogsNote(const std::string& gpu_id, const VllmVersion& version);
nlohmann::json CheckedLogsJson(const std::string& gpu_id, const VllmVersion& version);

}  // namespace labcheck::calc

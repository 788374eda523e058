// Reads a Hugging Face config.json into an Architecture. Handles the fields that change memory:
// num_key_value_heads (GQA), head_dim, tie_word_embeddings, MoE expert counts, sliding-window
// layer patterns and a nested text_config (multimodal models); the families of issue 21 (MLA,
// DeepSeek MoE, Jamba, Llama 4's interleaved experts and chunked attention, Qwen3-Next's Gated
// DeltaNet, Nemotron-H's block pattern, quantised checkpoints). A missing or malformed field is an
// error that names it, because a silently defaulted field gives a silently wrong answer.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "calc/architecture.h"
#include "core/status.h"

namespace labcheck::calc {

// `origin` names where the config came from (a path, a catalog entry) for error messages.
Result<Architecture> ParseHfConfig(const nlohmann::json& config, const std::string& origin);
Result<Architecture> ParseHfConfigText(const std::string& json_text, const std::string& origin);

}  // namespace labcheck::calc

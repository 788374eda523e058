// What the report tells about vLLM whether or not it is installed here: how to check it from the
// environment the course keeps it in (lesson 7.1.2), and which `vllm serve` command fits this
// machine's GPUs.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/check_result.h"
#include "facts/run_facts.h"

namespace labcheck::smoke {

struct ServeAdvice {
  std::string model;            // "Qwen/Qwen3-32B"
  int tensor_parallel = 1;
  std::string command;          // the whole `vllm serve ...` line
};

// From the probe's torch facts ({"devices": [{"memory_gib": ...}]}); nullopt without a GPU.
std::optional<ServeAdvice> VllmServeAdvice(const nlohmann::json& facts);

// Adds the table "vLLM on this machine" with both commands to the vLLM check's result. `run`: the
// report's facts, for why there is no `vllm serve` line (nullptr: the probe's facts alone).
void AddVllmAdvice(CheckResult& result, const nlohmann::json& facts, const facts::RunFacts* run = nullptr);

}  // namespace labcheck::smoke

// What the jobs that run on chosen cards (the burn, the memory test) start from: the cards --gpus
// names, and NVML's health reader for their counters. One place, so that both refuse a card that
// is not there in the same words, in both languages.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/jobs/gpu_runtime.h"
#include "gpu/nvidia/nvml_health_library.h"

namespace labcheck::gpu {

// The cards `text` names: "" or "all" every one of `count`, else "0,2" (the command line has
// checked the form). A number no card has: nullopt, and `*refusal` becomes the job's FAIL envelope
// naming it, with the cards' range in its hint.
std::optional<std::vector<int>> SelectCards(const std::string& text, int count, nlohmann::json* refusal);

// NVML's health reader where NVML loaded and has its functions; null otherwise (the job runs
// without the counters it reads).
std::unique_ptr<NvmlHealth> HealthReaderIfAny(const GpuRuntime& runtime);

}  // namespace labcheck::gpu

// JSON for the figures the child jobs report, one shape for all of them.
#pragma once
#include <nlohmann/json.hpp>

#include "gpu/bench/copy_bench.h"
#include "gpu/bench/matmul_bench.h"
#include "gpu/bench/nvml_sampler.h"
#include "gpu/bench/stats.h"

namespace labcheck::gpu {

nlohmann::json SampledJson(const Sampled& s);        // {median_ms, min_ms, max_ms, repeats, cv}
nlohmann::json NvmlSamplesJson(const NvmlSamples& s);  // {clock_event_reasons, min_sm_clock_mhz, …}
nlohmann::json MatmulFigureJson(const MatmulFigure& f);
nlohmann::json CopyFigureJson(const CopyFigure& f);

}  // namespace labcheck::gpu

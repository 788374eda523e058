// `node-check --prometheus FILE`: the run's verdict and each card's figures in the text format
// node_exporter's textfile collector reads (https://prometheus.io/docs/instrumenting/exposition_formats/),
// so a fleet's dashboards see them beside DCGM exporter's. Names and units follow Prometheus'
// conventions (https://prometheus.io/docs/practices/naming/): base units (bytes, seconds, FLOP),
// `_per_second`, `_seconds`; per card the labels gpu (the CUDA ordinal), uuid and model.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {

// The text of one run. `payload` is the child's (for the health facts); `checked_at_s` the Unix time;
// `drain` what --drain decided (the report's "drain": {action, ok, …}), null when it was not asked.
std::string PrometheusText(const NodeVerdict& verdict, const nlohmann::json& payload, double checked_at_s,
                           const nlohmann::json& drain = nullptr);

// Written atomically (a temporary file beside it, then rename): the collector never reads half a
// file. The name must end in ".prom", the only files the collector reads.
Status WritePrometheusFile(const std::string& path, const std::string& text);

}  // namespace labcheck::node_check

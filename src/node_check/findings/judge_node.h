// The node's verdict from the child job's payload (gpu-node-check, src/gpu/jobs/node_check_job.cpp)
// and the expectations: every source of findings in this folder asked in turn, each card's facts
// beside its figures, then Classify (verdict/node_verdict.h). A pure function, so every finding is
// testable on hand-written JSON.
#pragma once
#include <nlohmann/json.hpp>

#include "node_check/verdict/node_expectations.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {

// `payload`: the child's "ok" JSON ({inventory, health, matmul, copy, timings_s}).
NodeVerdict JudgeNode(const nlohmann::json& payload, const NodeExpectations& expect);

}  // namespace labcheck::node_check

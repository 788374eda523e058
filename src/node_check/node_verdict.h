// The node's verdict from the child job's payload (gpu-node-check, src/gpu/jobs/node_check_job.cpp)
// and the expectations: a list of findings, each naming its card and what is wrong in a few words,
// the way `sinfo -R` shows them. A pure function, so every finding is testable on hand-written JSON.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "node_check/node_expectations.h"

namespace labcheck::node_check {

struct Finding {
  int gpu = -1;      // -1: the node as a whole (GPU count, driver)
  std::string item;  // stable key: "gpu_count", "remapped_rows", "pcie_link", "matmul_band", ...
  Text text;         // "row remap failed", "PCIe Gen3 x16 (max Gen4 x16)"
};

enum class NodeState { Healthy, Unhealthy, CannotTell };

struct NodeVerdict {
  NodeState state = NodeState::Healthy;
  std::vector<Finding> findings;
  std::vector<Finding> warnings;                    // said, but the node stays in service (correctable ECC)
  Text cannot_tell;                                 // why, when CannotTell
  nlohmann::json gpus = nlohmann::json::array();    // per card: the figures the findings were judged on
  nlohmann::json timings = nlohmann::json::object();
  nlohmann::json xids = nlohmann::json::array();    // every XID seen, failing or not (xid_findings.cpp)
};

// `payload`: the child's "ok" JSON ({inventory, health, matmul, copy, timings_s}).
NodeVerdict JudgeNode(const nlohmann::json& payload, const NodeExpectations& expect);

// "GPU3 (0000:3b:00.0) row remap failed" (or the node-wide text alone): the card by CUDA ordinal
// and by PCI bus id (core/gpu_label.h), the bus id taken from `gpus` (NodeVerdict::gpus).
std::string FindingText(const Finding& finding, Lang lang, const nlohmann::json& gpus = nlohmann::json::array());
// "OK", "FAIL: GPU3 (0000:3b:00.0) row remap failed; GPU5 (0000:5d:00.0) PCIe Gen3 x16 (max Gen5 x16)", "UNKNOWN: why".
std::string VerdictLine(const NodeVerdict& verdict, Lang lang);
const char* StateName(NodeState state);  // "OK", "FAIL", "UNKNOWN"

}  // namespace labcheck::node_check

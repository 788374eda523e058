// The JSON of one node's check (`node-check --json`, `--out`), and reading it back for the fleet
// table. Unlike lab_check's reports it names the node: it is written for the cluster's
// administrator, who must know which node to drain, not for forwarding to others.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "node_check/verdict/node_verdict.h"

namespace labcheck::node_check {

inline constexpr const char* kNodeReportKind = "lab_check.node_check";

// {kind, version, tool_version, tool_commit, node, verdict, line, line_ru, exit_code, findings, gpus,
//  timings_s, expectations, driver_version, simulated, checked_at, error}
nlohmann::json NodeReportJson(const NodeVerdict& verdict, const nlohmann::json& payload, const NodeExpectations& expect,
                              const std::string& node);

bool IsNodeReport(const nlohmann::json& value);

}  // namespace labcheck::node_check

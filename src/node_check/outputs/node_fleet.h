// The fleet view: many nodes' node-check JSONs in one table (node, verdict, slowest card, worst
// finding), what an administrator reads after `srun -N 64 lab_check node-check --json > fleet.jsonl`
// or with `--out journal/nodes/{node}.json`. Sick nodes first. `lab_check compare` calls it when
// its inputs are node-check JSONs (wired in app.cpp).
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/text.h"

namespace labcheck::node_check {

// Every node report in `paths`: a file holding one JSON object or one per line (JSON Lines, as
// srun gathers --json), a folder (its *.json), or a glob pattern. An error names the path.
Result<std::vector<nlohmann::json>> ReadNodeReports(const std::vector<std::string>& paths);

struct FleetRow {
  std::string node;
  std::string verdict;       // OK, FAIL, UNKNOWN
  std::string slowest_card;  // "GPU5 612 TFLOPS", empty when none was measured
  std::string worst;         // the worst finding's text in the run's language; "—" when none
  int findings = 0;
};

// Sick nodes first (FAIL, UNKNOWN, OK), then by name.
std::vector<FleetRow> FleetRows(const std::vector<nlohmann::json>& reports, Lang lang);
std::string FleetTable(const std::vector<FleetRow>& rows, Lang lang);
nlohmann::json FleetJson(const std::vector<FleetRow>& rows);

// `compare`'s extension: nullopt unless the first input holds a node report.
std::optional<int> CompareFleet(const std::vector<std::string>& files, bool json, Lang lang, std::ostream& out,
                                std::ostream& err);

}  // namespace labcheck::node_check

// A node's verdict: a list of findings, each naming its card and what is wrong in a few words, the
// way `sinfo -R` shows them, with its code, severity and action from data/finding_codes.json
// (reference/finding_codes.h), and the state they add up to. JudgeNode (findings/judge_node.h)
// makes one from the child job's payload.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "node_check/verdict/node_expectations.h"
#include "reference/finding_codes.h"

namespace labcheck::node_check {

struct Finding {
  int gpu = -1;      // -1: the node as a whole (GPU count, driver)
  std::string item;  // its key in data/finding_codes.json: "gpu_count", "remapped_rows_pending", "pcie_link", ...
  Text text;         // "row remap failed", "PCIe Gen3 x16 (max Gen4 x16)"
  std::map<std::string, std::string> values = {};  // the action's own placeholders: {"default_w", "450"}
  // From the table (JudgeNode fills them; a key the table lacks reads LC900, isolate):
  std::string code = {};                                         // "LC204"
  reference::Severity severity = reference::Severity::Isolate;
  reference::Clears clears = reference::Clears::Run;
  Text action = {};                                              // placeholders filled with this card's bus id, serial…
  bool held = false;                                             // --report-only: reported, never fails the node
  // What the finding concerns when it is not one of the driver's cards (gpu < 0): a card sysfs
  // names by its PCI bus id ("0000:9a:00.0": a GPU off the bus, an InfiniBand card), and for a
  // network port its RDMA device and port ("mlx5_3", 1). --json and the metrics carry them, so that
  // tooling filing an RMA by findings[].pci_bus_id gets the card; the action's {bus} and {pci} name it.
  std::string pci_bus_id = {};
  std::string device = {};
  std::optional<int> port = {};
};

// A finding keeps the node out of service: above `monitor` and not held back by --report-only.
bool Fails(const Finding& finding);

// The card `index` of NodeVerdict::gpus (its bus id, UUID, serial…); {} when it is not there (a
// node-wide finding).
nlohmann::json CardOf(const nlohmann::json& gpus, int index);

// The PCI bus id a finding concerns: its own (a card sysfs names, a network port's HCA), else its
// GPU's from `gpus`; "" for a node-wide finding.
std::string FindingBusId(const Finding& finding, const nlohmann::json& gpus);

enum class NodeState { Healthy, Unhealthy, CannotTell };

struct NodeVerdict {
  NodeState state = NodeState::Healthy;
  std::vector<Finding> findings;                    // every one, failing or not (Fails())
  Text cannot_tell;                                 // why, when CannotTell
  nlohmann::json gpus = nlohmann::json::array();    // per card: the figures the findings were judged on
  nlohmann::json timings = nlohmann::json::object();
  nlohmann::json xids = nlohmann::json::array();    // every XID seen, failing or not (xid_findings.cpp)
};

// Code, severity, clearing rule and action of each finding from the table; the action names the
// card by bus id, serial and UUID (from `gpus`); `report_only` codes (or "all") are held back.
// Then the state: Unhealthy when any finding fails. JudgeNode (findings/judge_node.h) calls it; node-check calls it again
// on a verdict it made from the child's envelope.
void Classify(NodeVerdict& verdict, const std::set<std::string>& report_only);

// "GPU3 (0000:3b:00.0) row remap failed" (or the node-wide text alone): the card by CUDA ordinal
// and by PCI bus id (core/gpu_label.h), the bus id taken from `gpus` (NodeVerdict::gpus).
std::string FindingText(const Finding& finding, Lang lang, const nlohmann::json& gpus = nlohmann::json::array());
// "LC204 GPU3 (0000:3b:00.0) row remap pending a reset": the code first, as `sinfo -R` and the
// Slurm reason show it.
std::string CodedFindingText(const Finding& finding, Lang lang, const nlohmann::json& gpus = nlohmann::json::array());
// "OK", "FAIL: LC205 GPU3 (0000:3b:00.0) row remap failed; LC402 GPU5 (0000:5d:00.0) PCIe Gen3 x16
// (max Gen5 x16)", "UNKNOWN: why": the failing findings only.
std::string VerdictLine(const NodeVerdict& verdict, Lang lang);
// The failing findings' part of VerdictLine, what --drain puts after "lab_check: ".
std::string FailingFindingsText(const NodeVerdict& verdict, Lang lang);
const char* StateName(NodeState state);  // "OK", "FAIL", "UNKNOWN"

}  // namespace labcheck::node_check

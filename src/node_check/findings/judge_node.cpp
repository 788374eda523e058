#include "node_check/findings/judge_node.h"

#include <algorithm>
#include <optional>

#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

// Each card's facts beside its figures, so that --json and the fleet table need no second look.
json CardsFromInventory(const json& inventory, const json& health) {
  json cards = json::array();
  const json gpus = inventory.value("gpus", json::array());
  const json health_gpus = health.value("gpus", json::array());
  for (size_t k = 0; k < gpus.size(); ++k) {
    const json& g = gpus[k];
    json card = {{"index", g.value("index", static_cast<int>(k))},
                 {"name", g.value("name", std::string())},
                 {"pci_bus_id", g.value("pci_bus_id", std::string())},
                 {"uuid", g.value("uuid", json(nullptr))},
                 {"serial", g.value("serial", json(nullptr))},
                 {"memory_total_gib", g.value("memory_total_gib", 0.0)},
                 {"nvlink", g.value("nvlink", json(nullptr))},
                 {"nvlink_errors", g.value("nvlink_errors", json(nullptr))}};
    if (k < health_gpus.size()) {
      const json facts = health_gpus[k].value("facts", json::object());
      for (const char* key : {"pcie_gen_under_load", "pcie_width_under_load", "pcie_gen_max", "pcie_width_max"})
        card[key] = facts.value(key, json(nullptr));
    }
    cards.push_back(card);
  }
  return cards;
}

// The PCIe link under load is the best one NVML showed while the card worked: in the health
// window (host copies) and during the matmul and the copy. A link that trained low stays low in
// all of them; one sample taken as the link came up from idle (a real card's link drops to Gen1
// at idle and returns within milliseconds of work) must not drain a healthy node.
json WithBestLinkSamples(json health, const json& matmul, const json& copy) {
  if (!health.contains("gpus") || !health["gpus"].is_array()) return health;
  for (size_t k = 0; k < health["gpus"].size(); ++k) {
    json& facts = health["gpus"][k]["facts"];
    if (!facts.is_object()) continue;
    for (const char* key : {"pcie_gen_under_load", "pcie_width_under_load"}) {
      std::optional<unsigned> best;
      if (facts.contains(key) && facts[key].is_number()) best = facts[key].get<unsigned>();
      for (const json* list : {&matmul, &copy}) {
        if (!list->is_array() || k >= list->size()) continue;
        const json& nvml = (*list)[k].value("nvml", json::object());
        if (nvml.is_object() && nvml.contains(key) && nvml[key].is_number())
          best = std::max(best.value_or(0), nvml[key].get<unsigned>());
      }
      if (best) facts[key] = *best;
    }
  }
  return health;
}

}  // namespace

NodeVerdict JudgeNode(const json& payload, const NodeExpectations& expect) {
  NodeVerdict v;
  const json inventory = payload.value("inventory", json::object());
  const json health = WithBestLinkSamples(payload.value("health", json::object()), payload.value("matmul", json::array()),
                                          payload.value("copy", json::array()));
  const std::vector<const reference::GpuSpec*> specs = CatalogSpecs(inventory);
  v.gpus = CardsFromInventory(inventory, health);
  AddInventoryFindings(inventory, specs, expect, v.findings);
  const json bus = payload.value("pci_bus", json(nullptr));
  AddBusFindings(bus, inventory, v.findings, AddFellOffBusFindings(health, inventory, bus, expect, v.findings));
  AddDriverMessageFindings(health, v.findings);
  AddNvLinkErrorFindings(inventory, v.findings);
  AddNetworkPortFindings(payload.value("network_ports", json(nullptr)), payload.value("network_cards_without_rdma", json(nullptr)), expect,
                         v.findings);
  AddSxidFindings(health.value("sxid_kernel_log", json(nullptr)), v.findings);
  AddHealthFindings(health, specs, expect, v.findings, v.xids);
  AddPerformanceFindings(payload.value("matmul", json::array()), payload.value("copy", json::array()), specs, expect,
                         v.findings, v.gpus);
  AddMemtestFindings(payload.value("memtest", json(nullptr)), v.findings, v.gpus);
  for (Finding& w : CorrectableErrorWarnings(health, expect)) v.findings.push_back(std::move(w));
  for (Finding& w : NvLinkErrorWarnings(inventory, expect)) v.findings.push_back(std::move(w));
  // Node-wide findings first, then card by card in index order (stable within a card).
  std::stable_sort(v.findings.begin(), v.findings.end(), [](const Finding& a, const Finding& b) { return a.gpu < b.gpu; });
  v.timings = payload.value("timings_s", json::object());
  Classify(v, expect.report_only);
  return v;
}

}  // namespace labcheck::node_check

#include "node_check/verdict/node_verdict.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/gpu_label.h"

namespace labcheck::node_check {

using nlohmann::json;

json CardOf(const json& gpus, int index) {
  for (const json& g : gpus)
    if (g.value("index", -1) == index) return g;
  return json::object();
}

std::string FindingBusId(const Finding& f, const json& gpus) {
  if (!f.pci_bus_id.empty()) return f.pci_bus_id;
  return CardOf(gpus, f.gpu).value("pci_bus_id", std::string());
}

bool Fails(const Finding& f) { return f.severity != reference::Severity::Monitor && !f.held; }

namespace {

// Cause before effect: a finding that another finding on the same card explains. A power limit
// set below the default holds the clocks down, so that card's slow matmul is the limit's effect:
// fixing the limit is the action, and the card is not one to isolate for it (issue 56).
struct Explains {
  const char* cause;
  const char* effect;
};
constexpr Explains kExplains[] = {{"power_limit", "matmul_band"}, {"power_limit", "matmul_spread"}};

void ExplainEffects(std::vector<Finding>& findings) {
  for (Finding& effect : findings) {
    for (const Explains& e : kExplains) {
      if (effect.item != e.effect) continue;
      auto cause = std::find_if(findings.begin(), findings.end(),
                                [&](const Finding& f) { return f.item == e.cause && f.gpu == effect.gpu; });
      if (cause == findings.end()) continue;
      effect.severity = cause->severity;
      effect.clears = cause->clears;
      effect.action = T(fmt::format("следствие {} на этой карте ({}): исправьте сначала его, затем повторите node-check", cause->code,
                                    cause->text.ru),
                        fmt::format("the effect of {} on this card ({}): fix that first, then run node-check again", cause->code,
                                    cause->text.en));
      break;
    }
  }
}

}  // namespace

void Classify(NodeVerdict& v, const std::set<std::string>& report_only) {
  for (Finding& f : v.findings) {
    const reference::FindingCode& entry = reference::FindingCodeFor(f.item);
    f.code = entry.code;
    f.severity = entry.severity;
    f.clears = entry.clears;
    std::map<std::string, std::string> values = f.values;
    const json card = CardOf(v.gpus, f.gpu);
    const std::string bus_id = FindingBusId(f, v.gpus);
    values["bus"] = NvidiaSmiId(bus_id);
    values["pci"] = bus_id.substr(0, bus_id.rfind('.'));
    for (const char* key : {"uuid", "serial"})
      if (card.value(key, json(nullptr)).is_string()) values[key] = card[key].get<std::string>();
    f.action = reference::FillAction(entry.action, values);
    f.held = report_only.count("all") > 0 || report_only.count(f.code) > 0;
  }
  ExplainEffects(v.findings);
  if (v.state == NodeState::CannotTell) return;
  v.state = std::any_of(v.findings.begin(), v.findings.end(), Fails) ? NodeState::Unhealthy : NodeState::Healthy;
}

std::string FindingText(const Finding& f, Lang lang, const json& gpus) {
  if (f.gpu < 0) return f.text.In(lang);
  return GpuLabel(f.gpu, CardOf(gpus, f.gpu).value("pci_bus_id", std::string())) + " " + f.text.In(lang);
}

std::string CodedFindingText(const Finding& f, Lang lang, const json& gpus) {
  return (f.code.empty() ? "" : f.code + " ") + FindingText(f, lang, gpus);
}

std::string FailingFindingsText(const NodeVerdict& v, Lang lang) {
  std::string text;
  for (const Finding& f : v.findings)
    if (Fails(f)) text += (text.empty() ? "" : "; ") + CodedFindingText(f, lang, v.gpus);
  return text;
}

std::string VerdictLine(const NodeVerdict& v, Lang lang) {
  if (v.state == NodeState::CannotTell) return "UNKNOWN: " + v.cannot_tell.In(lang);
  if (v.state == NodeState::Healthy) return "OK";
  return "FAIL: " + FailingFindingsText(v, lang);
}

const char* StateName(NodeState state) {
  switch (state) {
    case NodeState::Healthy: return "OK";
    case NodeState::Unhealthy: return "FAIL";
    case NodeState::CannotTell: return "UNKNOWN";
  }
  return "UNKNOWN";
}

}  // namespace labcheck::node_check

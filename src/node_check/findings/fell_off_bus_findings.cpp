// A card the driver lost: one finding per card with every piece of evidence, however many sources
// say it (docs/cluster-gate.md, "What the peers read"):
//   - it fell off the bus (LC110): XID 79 in the kernel log or during the check, the driver's
//     "GPU has fallen off the bus." line and its three-line "… installed in this system has fallen
//     off the bus and is not responding to commands" at probe (gpu/health/fallen_off_bus.h; leptonai/
//     gpud reads both as XID 79, NVSentinel raises a RESTART_BM event, DCGM has DCGM_FR_FALLEN_OFF_BUS
//     for XID 79), and, for a card the driver no longer lists, the bus scan's "on the PCI bus but not
//     in the driver";
//   - the driver could not initialise it (LC111): "RmInitAdapter failed!" for a card the driver
//     does not list (gpu/health/driver_messages.h). A card that failed once and is in the driver now
//     initialised on a later try: its lines stay in --json only.
// Every other card on the bus but not in the driver is bus_findings.cpp's (LC106), which leaves out
// the cards named here. The site's --xid-ignore 79 ignores every form of XID 79.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpu/nvidia/nvml_library.h"  // CanonicalPciBusId
#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

struct LostCardEvidence {
  std::vector<Text> fell_off;  // what says the card fell off the bus
  bool init_failed = false;
  std::string init_status;     // RmInitAdapter's status triple, "0x62:0x65:2522"
  std::string serial;          // the board serial the kernel log names
};

void AddEvidenceOnce(std::vector<Text>& list, Text piece) {
  for (const Text& t : list)
    if (t.en == piece.en) return;
  list.push_back(std::move(piece));
}

// How the driver said it (gpu/health/kernel_log.h's forms), in a few words.
Text FellOffWords(const std::string& form) {
  if (form == "gpu_line") return T("строка драйвера: GPU has fallen off the bus", "driver line: GPU has fallen off the bus");
  if (form == "probe_message") return T("при пробе: not responding to commands", "at probe: not responding to commands");
  return T("XID 79", "XID 79");
}

std::string BusIdOfKernelPci(const std::string& pci) { return gpu::CanonicalPciBusId(pci + ".0"); }

void FromXidRecord(const json& x, std::map<std::string, LostCardEvidence>& cards) {
  if (x.value("xid", 0) != 79) return;
  LostCardEvidence& card = cards[BusIdOfKernelPci(x.value("pci", ""))];
  AddEvidenceOnce(card.fell_off, FellOffWords(x.value("form", "xid")));
  for (const json& also : x.value("also", json::array())) AddEvidenceOnce(card.fell_off, FellOffWords(also.value("form", "xid")));
  if (card.serial.empty()) card.serial = x.value("serial", "");
}

std::map<std::string, LostCardEvidence> EvidenceByCard(const json& health, const NodeExpectations& e) {
  std::map<std::string, LostCardEvidence> cards;
  if (!e.xid_ignore.count(79)) {
    const json& log = health.value("xid_kernel_log", json(nullptr));
    if (log.is_array())
      for (const json& x : log) FromXidRecord(x, cards);
    for (const json& g : health.value("gpus", json::array())) {
      const json during = g.value("facts", json::object()).value("xid_during_run", json(nullptr));
      if (during.is_array() && std::find(during.begin(), during.end(), json(79)) != during.end())
        AddEvidenceOnce(cards[gpu::CanonicalPciBusId(g.value("pci_bus_id", ""))].fell_off, T("XID 79 во время проверки", "XID 79 during the check"));
    }
  }
  const json& messages = health.value("driver_kernel_log", json(nullptr));
  if (messages.is_array())
    for (const json& m : messages) {
      if (m.value("kind", "") != "init_failed" || !m.contains("pci")) continue;
      LostCardEvidence& card = cards[BusIdOfKernelPci(m["pci"].get<std::string>())];
      card.init_failed = true;
      if (card.init_status.empty()) card.init_status = m.value("status", "");
    }
  cards.erase("");
  return cards;
}

std::map<std::string, int> DriverIndexByBusId(const json& inventory) {
  std::map<std::string, int> index;
  int k = 0;
  for (const json& g : inventory.value("gpus", json::array()))
    index[gpu::CanonicalPciBusId(g.value("pci_bus_id", std::string()))] = g.value("index", k), ++k;
  return index;
}

// Where the card is beside the driver, as the bus scan saw it: on the bus, gone from it, or unknown
// (no scan, or a job given some cards only).
Text BusWords(const json& bus, const std::string& bus_id) {
  if (!bus.is_object() || !bus.contains("gpus") || bus.contains("partial")) return T("нет в драйвере", "not in the driver");
  for (const json& id : bus["gpus"])
    if (gpu::CanonicalPciBusId(id.get<std::string>()) == bus_id)
      return T("есть на шине PCI, но не в драйвере", "on the PCI bus but not in the driver");
  return T("пропала с шины PCI", "gone from the PCI bus");
}

Text JoinedEvidence(const std::vector<Text>& pieces) {
  Text s;
  for (const Text& p : pieces) s = T(s.ru + (s.ru.empty() ? "" : "; ") + p.ru, s.en + (s.en.empty() ? "" : "; ") + p.en);
  return s;
}

Finding FellOffFinding(int gpu, const std::string& bus_id, std::vector<Text> evidence) {
  const Text why = JoinedEvidence(evidence);
  const std::string who = gpu < 0 ? "GPU " + bus_id + " " : "";  // a card the driver lists is named by FindingText
  return {gpu, "gpu_fell_off_bus",
          T(fmt::format("{}отвалилась от шины ({}): перезагрузите узел", who, why.ru),
            fmt::format("{}fell off the bus ({}): reboot", who, why.en))};
}

Finding InitFailedFinding(const std::string& bus_id, const LostCardEvidence& card, const Text& where) {
  const std::string status = card.init_status.empty() ? "" : " (" + card.init_status + ")";
  return {-1, "gpu_init_failed",
          T(fmt::format("GPU {}: драйвер не смог её инициализировать (RmInitAdapter failed!{}; {})", bus_id, status, where.ru),
            fmt::format("GPU {} failed to initialise (RmInitAdapter failed!{}; {})", bus_id, status, where.en))};
}

}  // namespace

std::set<std::string> AddFellOffBusFindings(const json& health, const json& inventory, const json& bus,
                                            const NodeExpectations& expect, std::vector<Finding>& out) {
  std::set<std::string> named;
  const std::map<std::string, int> in_driver = DriverIndexByBusId(inventory);
  for (auto& [bus_id, card] : EvidenceByCard(health, expect)) {
    auto it = in_driver.find(bus_id);
    const int gpu = it == in_driver.end() ? -1 : it->second;
    if (gpu >= 0 && card.fell_off.empty()) continue;  // initialised on a later try: --json only
    if (card.fell_off.empty() && !card.init_failed) continue;
    Finding f = card.fell_off.empty() ? InitFailedFinding(bus_id, card, BusWords(bus, bus_id)) : Finding{};
    if (!card.fell_off.empty()) {
      if (gpu < 0) card.fell_off.push_back(BusWords(bus, bus_id));
      f = FellOffFinding(gpu, bus_id, card.fell_off);
    }
    if (!card.serial.empty()) f.values["serial"] = card.serial;
    f.pci_bus_id = bus_id;  // the card to reseat or replace, for --json and the metrics, listed or not
    out.push_back(std::move(f));
    named.insert(bus_id);
  }
  return named;
}

}  // namespace labcheck::node_check

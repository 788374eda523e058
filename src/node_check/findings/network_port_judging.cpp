// Each network port against its own kind (scan/network_roles.h), once --expect-ib, --expect-roce
// or --ib-devices have the ports judged (network_port_findings.cpp):
// - a compute rail strictly: not ACTIVE/LinkUp; at half or less of the best rate among the compute
//   rails of its link layer (a cable trained at fewer lanes or an older speed: half, not any
//   difference); link_downed or symbol_error growing during the check; a RoCE port whose Ethernet
//   interface is not up;
// - a storage/in-band card against its peers, the other such cards: a port down after it was up
//   (link_downed counted since the driver loaded), or down while the same port of a peer card is
//   up, or down on a card with no peer and no port up; at half or less of its peers' best rate of
//   its link layer; counters growing and its interface as above. A port that was never up, where
//   the peer cards have the same port down too, is a layout (the second port of a slot card left
//   uncabled), not a fault. NVIDIA's NVSentinel judges each card against its role peers the same
//   way and dropped its fixed rate check for this false positive (NVIDIA/NVSentinel PR #752: its
//   design's section 4.4, Why Speed Degradation Detection Was Removed, in
//   docs/nic-health-monitor/link-state-detection.md; pkg/topology/topology.go,
//   EvaluateCardHomogeneity, commit 5550aa3c).
// Each finding names the role it was judged as and carries the HCA's bus id, device and port.
#include <map>

#include <fmt/format.h>

#include "node_check/findings/findings.h"
#include "node_check/scan/pci_location.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

// Half the siblings' best rate or less is a port that trained wrong.
constexpr double kSlowPortFraction = 0.5;

std::string Str(const json& p, const char* key) {
  const json& v = p.value(key, json(nullptr));
  return v.is_string() ? v.get<std::string>() : std::string();
}

bool Compute(const json& p) { return Str(p, "role") != "other"; }  // no role: judged strictly
bool Up(const json& p) { return Str(p, "state") == "ACTIVE" && Str(p, "phys_state") == "LinkUp"; }

// The physical card (its PCI functions are its ports) and where on it the port is.
std::string CardKey(const json& p) {
  const std::string bus = Str(p, "pci_bus_id");
  return bus.empty() ? Str(p, "device") : CardOfBusId(bus);
}
std::pair<int, int> PositionOf(const json& p) {
  const std::string bus = Str(p, "pci_bus_id");
  return {bus.empty() ? 0 : FunctionOfBusId(bus), p.value("port", 0)};
}

Text RoleName(const json& p) { return Compute(p) ? T("вычислительная сеть", "compute") : T("хранилище/управление", "storage/in-band"); }

std::string PortLabel(const json& p, Lang lang) {
  return fmt::format("{} {} {}", Str(p, "device").empty() ? "?" : Str(p, "device"), lang == Lang::Ru ? "порт" : "port", p.value("port", 0));
}

void AddPortFinding(std::vector<Finding>& out, const json& p, const std::string& ru, const std::string& en) {
  Finding f{-1, "network_port",
            T(fmt::format("{} ({}): {}", PortLabel(p, Lang::Ru), RoleName(p).ru, ru), fmt::format("{} ({}): {}", PortLabel(p, Lang::En), RoleName(p).en, en))};
  f.pci_bus_id = Str(p, "pci_bus_id");
  f.device = Str(p, "device");
  f.port = p.value("port", 0);
  out.push_back(std::move(f));
}

// The best rate among the active ports of each role and link layer (a down port's rate is whatever
// the kernel last wrote, often the slowest, and says nothing about what its siblings reach).
std::map<std::pair<bool, std::string>, double> BestRates(const json& ports) {
  std::map<std::pair<bool, std::string>, double> best;
  for (const json& p : ports) {
    double& b = best[{Compute(p), Str(p, "link_layer")}];
    if (Up(p)) b = std::max(b, p.value("rate_gbit", 0.0));
  }
  return best;
}

// What an up port is judged on, whatever its role: its rate among its kind, counters, interface.
void JudgeUpPort(const json& p, double best, std::vector<Finding>& out) {
  const double rate = p.value("rate_gbit", 0.0);
  if (best > 0 && rate <= best * kSlowPortFraction)
    AddPortFinding(out, p, fmt::format("{:g} Гбит/с, у {} {:g}", rate, Compute(p) ? "соседних" : "таких же карт", best),
                   fmt::format("{:g} Gb/s, its {} {:g}", rate, Compute(p) ? "compute siblings" : "storage/in-band peers", best));
  for (const char* counter : {"link_downed", "symbol_error"}) {
    const long long growth = p.value(std::string(counter) + "_growth", 0LL);
    if (growth > 0)
      AddPortFinding(out, p, fmt::format("{} вырос на {} за проверку", counter, growth), fmt::format("{} grew by {} during the check", counter, growth));
  }
  if (p.contains("netdev") && Str(p, "netdev_operstate") != "up")
    AddPortFinding(out, p, fmt::format("интерфейс {} не поднят", Str(p, "netdev")), fmt::format("interface {} is not up", Str(p, "netdev")));
}

// A storage/in-band port that is down: a fault, or the card's layout its peers share.
void JudgeOtherPortDown(const json& p, const json& ports, std::vector<Finding>& out) {
  const std::string down_ru = fmt::format("не работает ({}, {})", Str(p, "state"), Str(p, "phys_state"));
  const std::string down_en = fmt::format("down ({}, {})", Str(p, "state"), Str(p, "phys_state"));
  const json& downed = p.value("link_downed", json(nullptr));
  if (downed.is_number() && downed.get<long long>() > 0) {
    const long long n = downed.get<long long>();
    return AddPortFinding(out, p, fmt::format("{}, а был поднят (link_downed {} с загрузки драйвера)", down_ru, n),
                          fmt::format("{} after it was up (link_downed {} since the driver loaded)", down_en, n));
  }
  bool peers = false, sibling_up = false;
  for (const json& q : ports) {
    if (Compute(q) || &q == &p) continue;
    if (CardKey(q) == CardKey(p)) {
      sibling_up = sibling_up || Up(q);
      continue;
    }
    if (PositionOf(q) != PositionOf(p)) continue;
    peers = true;
    if (Up(q))
      return AddPortFinding(out, p, fmt::format("{}, а тот же порт соседней карты {} поднят", down_ru, PortLabel(q, Lang::Ru)),
                            fmt::format("{}; the same port of its peer card, {}, is up", down_en, PortLabel(q, Lang::En)));
  }
  if (peers || sibling_up) return;  // never up, as on its peers (or the spare port of a lone card)
  AddPortFinding(out, p, fmt::format("{}; ни один порт карты не поднят, сравнить не с чем", down_ru),
                 fmt::format("{}; no port of its card is up and it has no peer card", down_en));
}

}  // namespace

void JudgeNetworkPortsByRole(const json& ports, std::vector<Finding>& out) {
  const auto best = BestRates(ports);
  for (const json& p : ports) {
    if (!p.is_object()) continue;
    if (Up(p)) {
      JudgeUpPort(p, best.at({Compute(p), Str(p, "link_layer")}), out);
    } else if (Compute(p)) {
      AddPortFinding(out, p, fmt::format("не работает ({}, {})", Str(p, "state"), Str(p, "phys_state")),
                     fmt::format("down ({}, {})", Str(p, "state"), Str(p, "phys_state")));
    } else {
      JudgeOtherPortDown(p, ports, out);
    }
  }
}

}  // namespace labcheck::node_check

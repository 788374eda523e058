// The network ports a multi-node job needs (network_ports.h), judged when --expect-ib says the node
// has them: fewer ports than expected; a port not ACTIVE or whose physical link is not LinkUp; a port
// at half or less of the best rate among its siblings of the same link layer (a cable trained at
// fewer lanes or an older speed; half, not any difference, so a node with a slower management port
// of another kind still passes); the link-downed or symbol-error counter growing during the check (a
// flapping link, a bad cable); a RoCE port whose Ethernet interface is not up. A node without
// --expect-ib is not judged on them: a workstation's unused HCA is no fault.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

// Half the siblings' best rate or less is a port that trained wrong.
constexpr double kSlowPortFraction = 0.5;

std::string PortName(const json& port, const char* word) {
  return fmt::format("{} {} {}", port.value("device", std::string("?")), word, port.value("port", 0));
}

void AddPortFinding(std::vector<Finding>& out, const json& port, const std::string& ru, const std::string& en) {
  out.push_back({-1, "network_port", T(PortName(port, "порт") + ": " + ru, PortName(port, "port") + ": " + en)});
}

// The best rate among the active ports of each link layer (a down port's rate is whatever the
// kernel last wrote, often the slowest, and says nothing about what its siblings reach).
std::map<std::string, double> BestRates(const json& ports) {
  std::map<std::string, double> best;
  for (const json& p : ports) {
    double& b = best[p.value("link_layer", std::string())];
    if (p.value("state", std::string()) == "ACTIVE") b = std::max(b, p.value("rate_gbit", 0.0));
  }
  return best;
}

void JudgePort(const json& p, double best, std::vector<Finding>& out) {
  const std::string state = p.value("state", std::string()), phys = p.value("phys_state", std::string());
  if (state != "ACTIVE" || phys != "LinkUp") {
    AddPortFinding(out, p, fmt::format("не работает ({}, {})", state, phys), fmt::format("down ({}, {})", state, phys));
    return;
  }
  const double rate = p.value("rate_gbit", 0.0);
  if (best > 0 && rate <= best * kSlowPortFraction)
    AddPortFinding(out, p, fmt::format("{:g} Гбит/с, у соседних {:g}", rate, best), fmt::format("{:g} Gb/s, its siblings {:g}", rate, best));
  for (const char* counter : {"link_downed", "symbol_error"}) {
    const long long growth = p.value(std::string(counter) + "_growth", 0LL);
    if (growth > 0) AddPortFinding(out, p, fmt::format("{} вырос на {} за проверку", counter, growth),
                        fmt::format("{} grew by {} during the check", counter, growth));
  }
  if (p.contains("netdev") && p.value("netdev_operstate", std::string()) != "up")
    AddPortFinding(out, p, fmt::format("интерфейс {} не поднят", p["netdev"].get<std::string>()),
        fmt::format("interface {} is not up", p["netdev"].get<std::string>()));
}

}  // namespace

void AddNetworkPortFindings(const json& ports, const NodeExpectations& expect, std::vector<Finding>& out) {
  if (!expect.ib_ports || !ports.is_array()) return;
  const int n = static_cast<int>(ports.size());
  if (n < *expect.ib_ports)
    out.push_back({-1, "network_port_count", T(fmt::format("портов InfiniBand/RoCE {} вместо {}", n, *expect.ib_ports),
                                               fmt::format("{} InfiniBand/RoCE ports, expected {}", n, *expect.ib_ports))});
  const std::map<std::string, double> best = BestRates(ports);
  for (const json& p : ports) JudgePort(p, best.at(p.value("link_layer", std::string())), out);
}

}  // namespace labcheck::node_check

#include "node_check/scan/network_ports.h"

#include <cstdlib>

#include "cluster/nic_discovery.h"  // ReadIbPorts
#include "env/sysfs.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

std::string NetAttribute(const std::string& path) {
  Result<std::string> line = env::ReadFirstLine(path);
  return line.ok() ? env::Trim(*line) : std::string();
}

json CounterJson(const std::optional<unsigned long long>& counter) { return counter ? json(*counter) : json(nullptr); }

// A RoCE port carries its traffic through an Ethernet interface: its state and speed matter too.
void AddNetdev(const std::string& sys_root, const std::string& netdev, json& port) {
  const std::string dir = sys_root + "/class/net/" + netdev;
  port["netdev"] = netdev;
  port["netdev_operstate"] = NetAttribute(dir + "/operstate");
  const double speed = std::atof(NetAttribute(dir + "/speed").c_str());  // -1 when down
  port["netdev_speed_mbit"] = speed > 0 ? json(speed) : json(nullptr);
}

}  // namespace

// The ports as the cluster mode reads them (cluster/nic_discovery.h), as node-check's JSON.
json ReadNetworkPorts(const std::string& sys_root) {
  json ports = json::array();
  for (const cluster::IbPort& p : cluster::ReadIbPorts(sys_root)) {
    json port = {{"device", p.device},
                 {"port", p.port},
                 {"state", p.state},
                 {"phys_state", p.phys_state},
                 {"rate_gbit", p.rate_gbit},
                 {"link_layer", p.link_layer},
                 {"link_downed", CounterJson(p.link_downed)},
                 {"symbol_error", CounterJson(p.symbol_error)}};
    if (!p.netdev.empty()) AddNetdev(sys_root, p.netdev, port);
    ports.push_back(port);
  }
  return ports;
}

json WithCounterGrowth(const json& before, json after) {
  for (json& port : after) {
    for (const json& old : before) {
      if (old["device"] != port["device"] || old["port"] != port["port"]) continue;
      for (const char* counter : {"link_downed", "symbol_error"}) {
        if (!old[counter].is_number() || !port[counter].is_number()) continue;
        const long long growth = port[counter].get<long long>() - old[counter].get<long long>();
        port[std::string(counter) + "_growth"] = growth;
      }
    }
  }
  return after;
}

}  // namespace labcheck::node_check

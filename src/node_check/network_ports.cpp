#include "node_check/network_ports.h"

#include <cstdlib>

#include "cluster/nic_discovery.h"  // ParseIbRate
#include "env/sysfs.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

std::string PortAttribute(const std::string& path) {
  Result<std::string> line = env::ReadFirstLine(path);
  return line.ok() ? env::Trim(*line) : std::string();
}

// "4: ACTIVE" → "ACTIVE", "5: LinkUp" → "LinkUp".
std::string AfterColon(const std::string& text) {
  const size_t colon = text.find(':');
  return colon == std::string::npos ? text : env::Trim(text.substr(colon + 1));
}

json PortCounter(const std::string& path) {
  const std::string text = PortAttribute(path);
  if (text.empty()) return nullptr;
  return std::strtoull(text.c_str(), nullptr, 10);
}

// A RoCE port carries its traffic through an Ethernet interface: its state and speed matter too.
void AddNetdev(const std::string& sys_root, const std::string& port_dir, json& port) {
  const std::string netdev = PortAttribute(port_dir + "/gid_attrs/ndevs/0");
  if (netdev.empty()) return;
  const std::string dir = sys_root + "/class/net/" + netdev;
  port["netdev"] = netdev;
  port["netdev_operstate"] = PortAttribute(dir + "/operstate");
  const double speed = std::atof(PortAttribute(dir + "/speed").c_str());  // -1 when down
  port["netdev_speed_mbit"] = speed > 0 ? json(speed) : json(nullptr);
}

}  // namespace

json ReadNetworkPorts(const std::string& sys_root) {
  json ports = json::array();
  const std::string ib_root = sys_root + "/class/infiniband";
  for (const std::string& device : env::ListDirectory(ib_root)) {
    for (const std::string& number : env::ListDirectory(ib_root + "/" + device + "/ports")) {
      const std::string dir = ib_root + "/" + device + "/ports/" + number;
      std::string layer = PortAttribute(dir + "/link_layer");
      json port = {{"device", device},
                   {"port", std::atoi(number.c_str())},
                   {"state", AfterColon(PortAttribute(dir + "/state"))},
                   {"phys_state", AfterColon(PortAttribute(dir + "/phys_state"))},
                   {"rate_gbit", cluster::ParseIbRate(PortAttribute(dir + "/rate")).value_or(0)},
                   {"link_layer", layer.empty() ? "InfiniBand" : layer},
                   {"link_downed", PortCounter(dir + "/counters/link_downed")},
                   {"symbol_error", PortCounter(dir + "/counters/symbol_error")}};
      if (layer == "Ethernet") AddNetdev(sys_root, dir, port);
      ports.push_back(port);
    }
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

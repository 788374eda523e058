#include "node_check/scan/network_ports.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "cluster/nic_discovery.h"  // ReadIbPorts
#include "env/sysfs.h"
#include "node_check/scan/pci_location.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

std::string NetAttribute(const std::string& path) {
  Result<std::string> line = env::ReadFirstLine(path);
  return line.ok() ? env::Trim(*line) : std::string();
}

bool Exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
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

// "0000:0c:00.0": domain, bus, device and function in hex, as sysfs names a PCI function.
bool LooksLikeBusId(const std::string& name) {
  if (name.size() != 12 || name[4] != ':' || name[7] != ':' || name[10] != '.') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11})
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

// The HCA's PCI function: the device link's target is /sys/devices/…/<bus id>.
void AddHcaLocation(const std::string& sys_root, const std::string& device, json& port) {
  const std::string link = sys_root + "/class/infiniband/" + device + "/device";
  const json location = LocationJson(sys_root, link);
  std::error_code error;
  const std::filesystem::path target = std::filesystem::canonical(link, error);
  const std::string name = error ? std::string() : target.filename().string();
  port["pci_bus_id"] = LooksLikeBusId(name) ? json(name) : json(nullptr);
  port["pci_path"] = location["pci_path"];
  port["numa_node"] = location["numa_node"];
}

// A sysfs attribute written in hex ("0x15b3", "0x020700"); nullopt when unreadable.
std::optional<unsigned long> PciHexAttribute(const std::string& path) {
  Result<std::string> line = env::ReadFirstLine(path);
  if (!line.ok()) return std::nullopt;
  const std::string text = env::Trim(*line);
  char* end = nullptr;
  const unsigned long value = std::strtoul(text.c_str(), &end, 16);
  if (end == text.c_str()) return std::nullopt;
  return value;
}

constexpr unsigned long kVendorMellanox = 0x15b3;
// PCI class codes (PCI Code and ID Assignment Specification, class 02h): 0x0200 Ethernet, 0x0207 InfiniBand.
constexpr unsigned long kClassEthernet = 0x0200;
constexpr unsigned long kClassInfiniband = 0x0207;

}  // namespace

json ReadNetworkPorts(const std::string& sys_root) {
  json ports = json::array();
  for (const cluster::IbPort& p : cluster::ReadIbPorts(sys_root)) {
    if (Exists(sys_root + "/class/infiniband/" + p.device + "/device/physfn")) continue;  // an SR-IOV VF
    json port = {{"device", p.device},
                 {"port", p.port},
                 {"state", p.state},
                 {"phys_state", p.phys_state},
                 {"rate_gbit", p.rate_gbit},
                 {"link_layer", p.link_layer},
                 {"link_downed", CounterJson(p.link_downed)},
                 {"symbol_error", CounterJson(p.symbol_error)}};
    if (!p.netdev.empty()) AddNetdev(sys_root, p.netdev, port);
    AddHcaLocation(sys_root, p.device, port);
    ports.push_back(port);
  }
  return ports;
}

json ReadNetworkCardsWithoutRdma(const std::string& sys_root) {
  json cards = json::array();
  const std::string root = sys_root + "/bus/pci/devices";
  for (const std::string& bus_id : env::ListDirectory(root)) {
    const std::string dir = root + "/" + bus_id;
    if (PciHexAttribute(dir + "/vendor") != kVendorMellanox || Exists(dir + "/physfn")) continue;
    const std::optional<unsigned long> cls = PciHexAttribute(dir + "/class");
    if (!cls || ((*cls >> 8) != kClassInfiniband && (*cls >> 8) != kClassEthernet)) continue;
    if (!env::ListDirectory(dir + "/infiniband").empty()) continue;
    // Bound to another driver on purpose (vfio-pci: passed through to a VM) is not lost; no
    // driver at all is (the probe failed), and so is mlx5_core without its RDMA device.
    std::error_code error;
    const std::filesystem::path driver = std::filesystem::read_symlink(dir + "/driver", error);
    if (!error && driver.filename() != "mlx5_core") continue;
    json card = LocationJson(sys_root, dir);
    card["pci_bus_id"] = bus_id;
    card["link_layer"] = (*cls >> 8) == kClassInfiniband ? "InfiniBand" : "Ethernet";
    cards.push_back(card);
  }
  return cards;
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

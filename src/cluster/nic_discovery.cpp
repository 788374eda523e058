#include "cluster/nic_discovery.h"

#include <sys/stat.h>

#include <cstdlib>

#include <fmt/format.h>

#include "env/sysfs.h"

namespace labcheck::cluster {

namespace {

std::string Attribute(const std::string& path) {
  Result<std::string> line = env::ReadFirstLine(path);
  return line.ok() ? env::Trim(*line) : std::string();
}

bool Exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

// "4: ACTIVE" → "ACTIVE", "5: LinkUp" → "LinkUp".
std::string AfterColon(const std::string& text) {
  const size_t colon = text.find(':');
  return colon == std::string::npos ? text : env::Trim(text.substr(colon + 1));
}

std::optional<unsigned long long> Counter(const std::string& path) {
  const std::string text = Attribute(path);
  if (text.empty()) return std::nullopt;
  return std::strtoull(text.c_str(), nullptr, 10);
}

// ARPHRD_INFINIBAND: IPoIB interfaces (ib0) are the IB ports again, not Ethernet.
constexpr int kArphrdInfiniband = 32;

}  // namespace

std::optional<double> ParseIbRate(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || value <= 0) return std::nullopt;
  return value;
}

std::vector<IbPort> ReadIbPorts(const std::string& sys_root) {
  std::vector<IbPort> ports;
  const std::string ib_root = sys_root + "/class/infiniband";
  for (const std::string& device : env::ListDirectory(ib_root)) {
    for (const std::string& port : env::ListDirectory(ib_root + "/" + device + "/ports")) {
      const std::string dir = ib_root + "/" + device + "/ports/" + port;
      IbPort p;
      p.device = device;
      p.port = std::atoi(port.c_str());
      p.rate_gbit = ParseIbRate(Attribute(dir + "/rate")).value_or(0);
      p.state = AfterColon(Attribute(dir + "/state"));
      p.phys_state = AfterColon(Attribute(dir + "/phys_state"));
      p.link_layer = Attribute(dir + "/link_layer");
      if (p.link_layer.empty()) p.link_layer = "InfiniBand";
      p.link_downed = Counter(dir + "/counters/link_downed");
      p.symbol_error = Counter(dir + "/counters/symbol_error");
      if (p.link_layer == "Ethernet") p.netdev = Attribute(dir + "/gid_attrs/ndevs/0");
      ports.push_back(p);
    }
  }
  return ports;
}

NicInventory ReadNics(const std::string& sys_root) {
  NicInventory nics;
  nics.ib_ports = ReadIbPorts(sys_root);
  const std::string net_root = sys_root + "/class/net";
  for (const std::string& name : env::ListDirectory(net_root)) {
    const std::string dir = net_root + "/" + name;
    if (name == "lo" || std::atoi(Attribute(dir + "/type").c_str()) == kArphrdInfiniband) continue;
    EthernetLink link;
    link.name = name;
    link.up = Attribute(dir + "/operstate") == "up";
    link.physical = Exists(dir + "/device");
    const std::string speed = Attribute(dir + "/speed");  // -1 or unreadable when down
    if (!speed.empty() && std::atof(speed.c_str()) > 0) link.speed_mbit = std::atof(speed.c_str());
    nics.ethernet.push_back(link);
  }
  return nics;
}

bool PeermemLoaded(const std::string& sys_root) {
  return Exists(sys_root + "/module/nvidia_peermem") || Exists(sys_root + "/module/nv_peer_mem");
}

std::optional<double> NicInventory::InterNodeGBps() const {
  double ib = 0, eth = 0;
  for (const IbPort& p : ib_ports)
    if (p.active()) ib += p.rate_gbit / 8;
  if (ib > 0) return ib;
  for (const EthernetLink& l : ethernet)
    if (l.up && l.physical && l.speed_mbit) eth += *l.speed_mbit / 8000;
  if (eth > 0) return eth;
  return std::nullopt;
}

std::string NicInventory::Kind() const {
  bool ib = false, roce = false;
  for (const IbPort& p : ib_ports) {
    if (!p.active() || p.rate_gbit <= 0) continue;
    (p.link_layer == "Ethernet" ? roce : ib) = true;
  }
  if (ib) return roce ? "InfiniBand+RoCE" : "InfiniBand";
  if (roce) return "RoCE";
  for (const EthernetLink& l : ethernet)
    if (l.up && l.physical && l.speed_mbit) return "Ethernet";
  return "none";
}

int NicInventory::UsableCount() const {
  int ib = 0, eth = 0;
  for (const IbPort& p : ib_ports) ib += p.active() && p.rate_gbit > 0;
  if (ib > 0) return ib;
  for (const EthernetLink& l : ethernet) eth += l.up && l.physical && l.speed_mbit.has_value();
  return eth;
}

std::string NicInventory::Describe() const {
  const std::string kind = Kind();
  if (kind == "none") return "none";
  // Group equal speeds: "2× InfiniBand 200 Gb/s + 1× … " rarely differs, so the common case reads short.
  std::vector<std::pair<double, int>> speeds;
  auto add = [&](double gbit) {
    for (auto& [s, n] : speeds)
      if (s == gbit) return void(++n);
    speeds.emplace_back(gbit, 1);
  };
  if (kind != "Ethernet") {
    for (const IbPort& p : ib_ports)
      if (p.active() && p.rate_gbit > 0) add(p.rate_gbit);
  } else {
    for (const EthernetLink& l : ethernet)
      if (l.up && l.physical && l.speed_mbit) add(*l.speed_mbit / 1000);
  }
  std::string text;
  for (const auto& [s, n] : speeds) text += fmt::format("{}{}× {} {:g} Gb/s", text.empty() ? "" : " + ", n, kind, s);
  return text;
}

nlohmann::json NicInventory::ToJson() const {
  nlohmann::json ib = nlohmann::json::array(), eth = nlohmann::json::array();
  for (const IbPort& p : ib_ports)
    ib.push_back({{"device", p.device}, {"port", p.port}, {"rate_gbit", p.rate_gbit}, {"state", p.state}, {"link_layer", p.link_layer}});
  for (const EthernetLink& l : ethernet)
    eth.push_back({{"name", l.name}, {"speed_mbit", l.speed_mbit ? nlohmann::json(*l.speed_mbit) : nlohmann::json(nullptr)},
                   {"up", l.up}, {"physical", l.physical}});
  std::optional<double> gbps = InterNodeGBps();
  return {{"ib_ports", ib}, {"ethernet", eth}, {"kind", Kind()}, {"usable", UsableCount()},
          {"inter_node_gbps", gbps ? nlohmann::json(*gbps) : nlohmann::json(nullptr)}, {"describe", Describe()}};
}

NicInventory NicInventory::FromJson(const nlohmann::json& j) {
  NicInventory nics;
  if (!j.is_object()) return nics;
  for (const nlohmann::json& p : j.value("ib_ports", nlohmann::json::array()))
    nics.ib_ports.push_back({p.value("device", ""), p.value("port", 1), p.value("rate_gbit", 0.0), p.value("state", ""),
                             p.value("link_layer", "")});
  for (const nlohmann::json& l : j.value("ethernet", nlohmann::json::array())) {
    EthernetLink link{l.value("name", ""), std::nullopt, l.value("up", false), l.value("physical", false)};
    if (l.contains("speed_mbit") && l["speed_mbit"].is_number()) link.speed_mbit = l["speed_mbit"].get<double>();
    nics.ethernet.push_back(link);
  }
  return nics;
}

}  // namespace labcheck::cluster

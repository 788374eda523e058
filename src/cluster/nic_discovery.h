// The network cards a node could use between nodes, read from sysfs, and the inter-node figure
// they allow. InfiniBand (and RoCE) ports: /sys/class/infiniband/<hca>/ports/<n>/{rate,state,
// link_layer}, rate written like "200 Gb/sec (4X HDR)"; Ethernet: /sys/class/net/<if>/{speed (Mb/s),
// operstate, type, device} (kernel Documentation/ABI/testing/sysfs-class-infiniband and
// sysfs-class-net). `sys_root` is "/sys" or a fake tree in tests.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace labcheck::cluster {

struct IbPort {
  std::string device;  // "mlx5_0"
  int port = 1;
  double rate_gbit = 0;     // per direction, Gb/s as the kernel writes it
  std::string state;        // "ACTIVE", "DOWN"…
  std::string link_layer;   // "InfiniBand" or "Ethernet" (RoCE)
  // What node-check reads of a port besides (node_check/scan/network_ports.h): the physical state
  // ("LinkUp"), the error counters (absent when unreadable), and for a RoCE port the Ethernet
  // interface its traffic crosses (gid_attrs/ndevs/0; empty for InfiniBand).
  std::string phys_state;
  std::optional<unsigned long long> link_downed, symbol_error;
  std::string netdev;
  bool active() const { return state == "ACTIVE"; }
};

struct EthernetLink {
  std::string name;  // "eth0", "enp65s0f0"
  std::optional<double> speed_mbit;  // none when down or not reported (virtual links)
  bool up = false;
  bool physical = false;  // has a device/ link: not a bridge, veth or docker0
};

struct NicInventory {
  std::vector<IbPort> ib_ports;
  std::vector<EthernetLink> ethernet;

  // What NCCL would use between nodes and how fast, per direction, in GB/s (10^9 bytes): the sum of
  // the active InfiniBand/RoCE ports when there are any (NCCL's IB transport uses them all), else
  // the sum of the physical Ethernet links that are up (NET/Socket). nullopt: nothing usable.
  std::optional<double> InterNodeGBps() const;
  std::string Kind() const;      // "InfiniBand", "RoCE", "Ethernet", "none"
  int UsableCount() const;       // how many ports/links InterNodeGBps adds up
  std::string Describe() const;  // "2× InfiniBand 200 Gb/s", "1× Ethernet 10 Gb/s", "none"
  nlohmann::json ToJson() const;
  static NicInventory FromJson(const nlohmann::json& j);
};

NicInventory ReadNics(const std::string& sys_root);

// Every InfiniBand/RoCE port under sys_root/class/infiniband, in device and port order.
std::vector<IbPort> ReadIbPorts(const std::string& sys_root);

// "200 Gb/sec (4X HDR)" → 200; nullopt when it does not start with a number.
std::optional<double> ParseIbRate(const std::string& text);

// GPUDirect RDMA needs the nvidia_peermem module (or the older nv_peer_mem) loaded for the NIC to
// read GPU memory directly (NCCL's "GDRDMA" in its log).
bool PeermemLoaded(const std::string& sys_root);

}  // namespace labcheck::cluster

// How the simulated GPUs are connected: peer access (P2P) by profile index, peer copy speed,
// PCIe topology levels and NVLink links (to a peer GPU or to an NVSwitch).
#pragma once
#include <string>
#include <vector>

namespace nvsim {

// cuDeviceCanAccessPeer: profile "p2p/access" is "none", "all" or a matrix of 0/1 by profile index.
bool PeerAccess(int a, int b);
// cuMemcpyPeer a → b, GB/s: "p2p/with_access_gbps" / "p2p/without_access_gbps", each a number or a matrix.
double PeerCopyGbps(int a, int b, bool with_access);
// False where the profile's p2p/copies_lost says a peer copy on this path never lands.
bool PeerCopyLands(bool with_access);
// nvmlDeviceGetTopologyCommonAncestor level (0, 10, 20, 30, 40, 50): "topology/level" (one name
// or a matrix of "PIX", "PXB", "PHB", "NODE", "SYS").
int TopologyLevel(int a, int b);

struct NvLink {
  bool active = false;
  std::string remote;     // "gpu" or "nvswitch"
  int peer = -1;          // profile index when remote == "gpu"
  std::string remote_bus; // canonical bus id of the far end
};
// The GPU's NVLink links: per GPU "nvlink": [{"to": "gpu", "peer": 1}, {"to": "nvswitch", "switch": 0}, …]
std::vector<NvLink> NvLinks(int device);

}  // namespace nvsim

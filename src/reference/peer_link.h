// What a copy between two GPUs can reach, judged from the link that joins that pair, not from the
// machine as a whole: on a workstation with NVLink bridges on some pairs, a bridged pair copies at
// NVLink speed and the others through PCIe or host memory. The one source for gpu.p2p's verdict
// and the expectations table's rows «P2P», «GPU→GPU» and all-reduce.
//
// - NVLink pair (NV# in the topology): N links × the generation's per-link rate (data/gpus.json
//   "nvlink"), realistic at the catalog's NVLink copy share of it.
// - PCIe pair with P2P: the practice band of the slower card's PCIe link (data/gpus.json "pcie").
// - Pair without P2P: the driver stages the copy through host memory, a device→host copy on one
//   card's link and a host→device copy on the other's. At best the two overlap (the practice band
//   of the slower card's link), at worst they run one after the other (half of its low edge).
//
// Every band comes from what the hardware is rated for (the catalog's PCIe generation and width
// of the card itself, its NVLinks), never from a measurement: a card on a slow riser must not
// lower the reference it is judged against (issue 38). A measured link explains a deviation in
// the caller's hint instead.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "reference/gpu_catalog.h"

namespace labcheck::reference {

enum class PeerPath { NvLink, Pcie, Host };

// One card of a pair, as the report knows it.
struct PeerCard {
  // Catalog spec, or one derived from the driver for an unknown card; null when unknown. Its PCIe
  // generation and width are the card's own, not the slot's or the riser's trained link.
  const GpuSpec* spec = nullptr;
};

// What joins the pair.
struct PeerLink {
  bool topology_known = false;  // gpu.inventory had NVML's topology for this pair
  int nvlinks = 0;              // NV#: active NVLinks between the two (0: none)
  std::string pcie_level;       // PIX, PXB, PHB, NODE, SYS; empty when NVLink or unknown
  std::optional<bool> p2p;      // cuDeviceCanAccessPeer; nullopt when not asked or failed
};

// One cell of gpu.inventory's topology matrix ("NV12", "PIX", "SYS"…); nullopt for "X", "?" or
// anything else. p2p is left unset.
std::optional<PeerLink> ParseTopologyCell(std::string_view cell);

struct PeerExpectation {
  PeerPath path = PeerPath::Host;
  std::optional<Band> band;  // GB/s one direction; none when the link's rate is unknown
  Text link;                 // «NV4», «PCIe 4.0 x16, P2P», «без P2P, через память процессора»
  Text basis;                // how the band was made, for the reference column
  // Set when the pair does not behave as its link says, whatever was measured: NVLink without P2P,
  // or fewer NVLinks than a full set of bridges gives this card.
  std::optional<Text> problem;
};

PeerExpectation ExpectPeerCopy(const PeerLink& link, const PeerCard& src, const PeerCard& dst, const GpuCatalog& catalog);

// The slowest link of the best ring through every card, as NCCL builds its rings (nccl-tests'
// PERFORMANCE.md: bus bandwidth "should reflect the speed of the hardware bottleneck"): the
// largest rate r such that the pairs at r or faster close a ring through all cards, and the pair
// with that rate. `gbps[i][j]`: what pair i→j reaches (a pair counts at the slower of its two
// directions; negative = unknown, and then no bound). nullopt for fewer than two cards.
struct RingBound {
  int a = 0, b = 0;
  double gbps = 0;
};
std::optional<RingBound> RingBottleneck(const std::vector<std::vector<double>>& gbps);

}  // namespace labcheck::reference

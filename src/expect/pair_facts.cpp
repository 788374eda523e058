// Per-pair facts: which link joins each pair of GPUs and what a copy over it should reach, from
// what the checks stored (docs/report-schema.md): gpu.inventory's topology matrix ("NV4", "PIX",
// … per pair, CUDA order) and the p2p.{i}-{j}.access measurements of gpu.p2p. The bands are the
// links' ratings (reference/peer_link.h); no measured copy moves them.
#include <utility>

#include <fmt/format.h>

#include "expect/report_facts.h"

namespace labcheck::expect {
namespace {

using nlohmann::json;

// gpu.inventory's data.topology.matrix, or null.
const json* TopologyMatrix(const Report& report) {
  const CheckResult* inventory = FindCheck(report, "gpu.inventory");
  if (inventory == nullptr || !inventory->data.is_object()) return nullptr;
  auto topology = inventory->data.find("topology");
  if (topology == inventory->data.end() || !topology->is_object()) return nullptr;
  auto matrix = topology->find("matrix");
  if (matrix == topology->end() || !matrix->is_array()) return nullptr;
  return &*matrix;
}

std::optional<reference::PeerLink> TopologyCell(const json* matrix, int i, int j) {
  if (matrix == nullptr || i < 0 || j < 0 || i >= static_cast<int>(matrix->size())) return std::nullopt;
  const json& row = (*matrix)[i];
  if (!row.is_array() || j >= static_cast<int>(row.size()) || !row[j].is_string()) return std::nullopt;
  return reference::ParseTopologyCell(row[j].get<std::string>());
}

// The card as rated: its catalog (or derived) spec; the copies measured never set a reference.
reference::PeerCard Card(const GpuFacts& g) {
  reference::PeerCard card;
  card.spec = &g.spec();
  return card;
}

}  // namespace

void ReadPairFacts(const Report& report, const reference::GpuCatalog& catalog, ReportFacts& facts) {
  // Cards CUDA did not see: no topology and no P2P answer, so no pair's link (or the ring) is known.
  if (facts.gpus_from_nvml) return;
  const json* matrix = TopologyMatrix(report);
  const size_t n = facts.gpus.size();
  std::vector<reference::PeerCard> cards;
  for (const GpuFacts& g : facts.gpus) cards.push_back(Card(g));
  // For the ring, each pair at the best the path NCCL can take allows (its band's high edge): a
  // pair without P2P goes through host memory even where NVLink joins it. Unknown: no bound.
  std::vector<std::vector<double>> ring_gbps(n, std::vector<double>(n, -1));
  std::vector<std::vector<reference::PeerExpectation>> ring_paths(n, std::vector<reference::PeerExpectation>(n));
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      PairFacts p;
      p.from = facts.gpus[a].index;
      p.to = facts.gpus[b].index;
      if (auto cell = TopologyCell(matrix, p.from, p.to)) p.link = *cell;
      facts.topology_known = facts.topology_known || p.link.topology_known;  // NVML answered for some pair
      if (auto access = MeasuredValue(report, fmt::format("p2p.{}-{}.access", p.from, p.to))) p.link.p2p = *access > 0.5;
      p.expected = reference::ExpectPeerCopy(p.link, cards[a], cards[b], catalog);
      ring_paths[a][b] = p.expected;
      if (p.link.p2p == false && p.expected.path != reference::PeerPath::Host) {
        reference::PeerLink host = p.link;
        host.nvlinks = 0;
        ring_paths[a][b] = reference::ExpectPeerCopy(host, cards[a], cards[b], catalog);
      }
      if (ring_paths[a][b].band) ring_gbps[a][b] = ring_paths[a][b].band->high;
      facts.pairs.push_back(std::move(p));
    }
  }
  if (auto bound = reference::RingBottleneck(ring_gbps)) {
    size_t a = bound->a, b = bound->b;
    if (ring_gbps[b][a] < ring_gbps[a][b]) std::swap(a, b);  // the slower direction sets it
    facts.ring = RingLimit{facts.gpus[a].index, facts.gpus[b].index, ring_paths[a][b]};
  }
}

}  // namespace labcheck::expect

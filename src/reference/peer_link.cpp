#include "reference/peer_link.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reference/pcie_link.h"

namespace labcheck::reference {
namespace {

// 56.25 → "56.3", 450 → "450", 14.0625 → "14.06": figures as a reader checks them.
std::string Gbps(double v) {
  if (v < 20) {
    std::string s = fmt::format("{:.2f}", v);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
  }
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string Range(Band b) { return fmt::format("{}–{}", Gbps(b.low), Gbps(b.high)); }

std::string Percent(double share) { return fmt::format("{:.0f}", share * 100); }

// The slower of the two cards' PCIe links.
std::optional<PcieLink> SlowerLink(const PeerCard& a, const PeerCard& b, const GpuCatalog& catalog) {
  auto gen = [](const PeerCard& c) { return c.spec ? c.spec->pcie_gen : 0; };
  auto width = [](const PeerCard& c) { return c.spec ? c.spec->pcie_width : 0; };
  const int ga = gen(a), gb = gen(b), wa = width(a), wb = width(b);
  if (ga <= 0 || gb <= 0 || wa <= 0 || wb <= 0) return std::nullopt;
  // The link with the lower limit; a gen and a width from different cards would be neither's.
  const bool a_slower = PcieLimitGbps(ga, wa) <= PcieLimitGbps(gb, wb);
  return catalog.Pcie(a_slower ? ga : gb, a_slower ? wa : wb);
}

// The per-link rate both cards support, and the links a full bridge set gives the pair.
struct PairNvLink {
  double link_gbps = 0;
  int bridge_links = 0;
};
std::optional<PairNvLink> NvLinkOf(const PeerCard& a, const PeerCard& b) {
  std::optional<PairNvLink> out;
  for (const PeerCard* c : {&a, &b}) {
    if (c->spec == nullptr || !c->spec->nvlink) continue;
    const NvLinkSpec& nv = *c->spec->nvlink;
    if (!out) out = PairNvLink{nv.link_gbps, nv.bridge_links};
    out->link_gbps = std::min(out->link_gbps, nv.link_gbps);
    out->bridge_links = std::min(out->bridge_links, nv.bridge_links);
  }
  return out;
}

PeerExpectation OverNvLink(int links, const PeerLink& link, const PeerCard& src, const PeerCard& dst,
                           const GpuCatalog& catalog) {
  PeerExpectation e;
  e.path = PeerPath::NvLink;
  e.link = Text(fmt::format("NV{}", links));
  const std::optional<PairNvLink> nv = NvLinkOf(src, dst);
  if (!nv) {
    e.basis = T(fmt::format("NVLink NV{}: скорость линка этой карты неизвестна", links),
                fmt::format("NVLink NV{}: this card's link rate is unknown", links));
  } else {
    const double limit = links * nv->link_gbps;
    const Band share = catalog.nvlink_copy_share();
    e.band = Band{limit * share.low, limit * share.high};
    e.basis = T(fmt::format("NVLink NV{}: {} × {} = {} ГБ/с в одну сторону; реально {} ({}–{}%)", links, links,
                            Gbps(nv->link_gbps), Gbps(limit), Range(*e.band), Percent(share.low), Percent(share.high)),
                fmt::format("NVLink NV{}: {} × {} = {} GB/s one way; real {} ({}–{}%)", links, links,
                            Gbps(nv->link_gbps), Gbps(limit), Range(*e.band), Percent(share.low), Percent(share.high)));
    if (nv->bridge_links > links)
      e.problem = T(fmt::format("NV{} при {} линках у полного комплекта мостов NVLink: мост не установлен или линк не "
                                "поднялся (nvidia-smi nvlink -s)", links, nv->bridge_links),
                    fmt::format("NV{} where a full set of NVLink bridges gives {} links: a bridge is missing or a link "
                                "is down (nvidia-smi nvlink -s)", links, nv->bridge_links));
  }
  // A bridged pair without P2P copies through host memory: the driver or the IOMMU keeps the link
  // unused. Said first: it costs the most.
  if (link.p2p == false) {
    Text no_p2p = T(fmt::format("NVLink NV{}, но P2P нет: копии идут через память процессора (nvidia-smi topo -p2p r)", links),
                    fmt::format("NVLink NV{} but no P2P: copies go through host memory (nvidia-smi topo -p2p r)", links));
    if (e.problem) {
      no_p2p.ru += "; " + e.problem->ru;
      no_p2p.en += "; " + e.problem->en;
    }
    e.problem = no_p2p;
  }
  return e;
}

PeerExpectation OverPcie(const PeerLink& link, const PeerCard& src, const PeerCard& dst, const GpuCatalog& catalog) {
  PeerExpectation e;
  e.path = PeerPath::Pcie;
  const std::optional<PcieLink> pcie = SlowerLink(src, dst, catalog);
  const std::string level = link.pcie_level.empty() ? "" : ", " + link.pcie_level;
  if (!pcie) {
    e.link = Text("PCIe, P2P" + level);
    e.basis = T("P2P по PCIe: связь PCIe неизвестна", "P2P over PCIe: the PCIe link is unknown");
    return e;
  }
  e.link = Text(fmt::format("PCIe {}.0 x{}, P2P{}", pcie->gen, pcie->width, level));
  e.band = pcie->practice_gbps;
  e.basis = T(fmt::format("P2P по PCIe {}.0 x{} (более медленная из двух карт): предел {}, на практике {}", pcie->gen,
                          pcie->width, Gbps(pcie->limit_gbps), Range(pcie->practice_gbps)),
              fmt::format("P2P over PCIe {}.0 x{} (the slower of the two cards): limit {}, in practice {}", pcie->gen,
                          pcie->width, Gbps(pcie->limit_gbps), Range(pcie->practice_gbps)));
  // Topology unknown (no NVML): a P2P pair of NVLink boards may be on NVLink; do not call a fast
  // copy "too fast" for want of the topology.
  if (!link.topology_known) {
    if (const std::optional<PairNvLink> nv = NvLinkOf(src, dst)) {
      int links = 0;
      for (const PeerCard* c : {&src, &dst})
        if (c->spec != nullptr && c->spec->nvlink) links = std::max(links, c->spec->nvlink->links);
      e.band->high = links * nv->link_gbps * catalog.nvlink_copy_share().high;
      e.link = T("P2P, PCIe или NVLink (топология неизвестна)", "P2P, PCIe or NVLink (topology unknown)");
      e.basis = T(fmt::format("P2P, топология неизвестна: от PCIe ({}) до NVLink ({})", Gbps(pcie->practice_gbps.low),
                              Gbps(e.band->high)),
                  fmt::format("P2P, topology unknown: from PCIe ({}) to NVLink ({})", Gbps(pcie->practice_gbps.low),
                              Gbps(e.band->high)));
    }
  }
  return e;
}

PeerExpectation ThroughHost(const PeerCard& src, const PeerCard& dst, const GpuCatalog& catalog) {
  PeerExpectation e;
  e.path = PeerPath::Host;
  e.link = T("без P2P, через память процессора", "no P2P, through host memory");
  if (const std::optional<PcieLink> pcie = SlowerLink(src, dst, catalog)) {
    e.band = Band{pcie->practice_gbps.low / 2, pcie->practice_gbps.high};
    e.basis = T(fmt::format("без P2P через память процессора по PCIe {}.0 x{} (паспорт более медленной карты): {}", pcie->gen,
                            pcie->width, Range(*e.band)),
                fmt::format("no P2P, through host memory over PCIe {}.0 x{} (the slower card's rating): {}", pcie->gen,
                            pcie->width, Range(*e.band)));
    return e;
  }
  e.basis = T("без P2P через память процессора; связь PCIe неизвестна", "no P2P, through host memory; PCIe link unknown");
  return e;
}

// Whether `links` (pairs at `threshold` or faster) close a ring through all n cards: a
// Hamiltonian cycle, by dynamic programming over subsets that start at card 0.
bool RingExists(const std::vector<std::vector<bool>>& links) {
  const int n = static_cast<int>(links.size());
  if (n == 2) return links[0][1];
  const unsigned full = (1u << n) - 1;
  // reach[mask][v]: a path from 0 through exactly `mask` ending at v.
  std::vector<std::vector<bool>> reach(full + 1, std::vector<bool>(n, false));
  reach[1][0] = true;
  for (unsigned mask = 1; mask <= full; ++mask) {
    if (!(mask & 1u)) continue;
    for (int v = 0; v < n; ++v) {
      if (!reach[mask][v]) continue;
      for (int w = 1; w < n; ++w)
        if (!(mask & (1u << w)) && links[v][w]) reach[mask | (1u << w)][w] = true;
    }
  }
  for (int v = 1; v < n; ++v)
    if (reach[full][v] && links[v][0]) return true;
  return false;
}

}  // namespace

std::optional<PeerLink> ParseTopologyCell(std::string_view cell) {
  PeerLink link;
  link.topology_known = true;
  if (cell.size() > 2 && cell.substr(0, 2) == "NV") {
    int n = 0;
    for (char c : cell.substr(2)) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + (c - '0');
    }
    if (n <= 0) return std::nullopt;
    link.nvlinks = n;
    return link;
  }
  for (const char* level : {"PIX", "PXB", "PHB", "NODE", "SYS"}) {
    if (cell == level) {
      link.pcie_level = level;
      return link;
    }
  }
  return std::nullopt;
}

PeerExpectation ExpectPeerCopy(const PeerLink& link, const PeerCard& src, const PeerCard& dst, const GpuCatalog& catalog) {
  if (link.topology_known && link.nvlinks > 0) return OverNvLink(link.nvlinks, link, src, dst, catalog);
  // No topology, but both cards are NVLink boards (SXM: the links are soldered, not bridged) and
  // P2P works: the pair is on NVLink with every link the card has.
  if (!link.topology_known && link.p2p == true && src.spec && dst.spec && src.spec->nvlink && dst.spec->nvlink &&
      src.spec->nvlink->bridge_links == 0 && dst.spec->nvlink->bridge_links == 0) {
    PeerExpectation e = OverNvLink(std::min(src.spec->nvlink->links, dst.spec->nvlink->links), link, src, dst, catalog);
    e.link = T("NVLink (по паспорту, топология неизвестна)", "NVLink (from the datasheet, topology unknown)");
    return e;
  }
  if (link.p2p == true) return OverPcie(link, src, dst, catalog);
  return ThroughHost(src, dst, catalog);
}

std::optional<RingBound> RingBottleneck(const std::vector<std::vector<double>>& gbps) {
  const int n = static_cast<int>(gbps.size());
  if (n < 2) return std::nullopt;
  std::vector<std::vector<double>> pair(n, std::vector<double>(n, -1));
  std::vector<double> rates;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      if (static_cast<int>(gbps[i].size()) != n || static_cast<int>(gbps[j].size()) != n) return std::nullopt;
      const double r = std::min(gbps[i][j], gbps[j][i]);
      if (r < 0) return std::nullopt;  // an unknown pair: no bound can be claimed
      pair[i][j] = r;
      rates.push_back(r);
    }
  }
  // Whether a ring exists only gets easier as the threshold drops: binary search over the rates.
  // Past 12 cards the subset search grows too big; the slowest pair is then a safe (low) bound.
  std::sort(rates.begin(), rates.end());
  rates.erase(std::unique(rates.begin(), rates.end()), rates.end());
  double bound = rates.front();
  if (n <= 12) {
    auto ring_at = [&](double threshold) {
      std::vector<std::vector<bool>> links(n, std::vector<bool>(n, false));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) links[i][j] = i != j && pair[i][j] >= threshold;
      return RingExists(links);
    };
    size_t lo = 0, hi = rates.size() - 1;  // rates[lo] always closes a ring (every pair counts)
    while (lo < hi) {
      const size_t mid = (lo + hi + 1) / 2;
      if (ring_at(rates[mid])) lo = mid;
      else hi = mid - 1;
    }
    bound = rates[lo];
  }
  // The pair that sets it: the first at exactly that rate (in a ring of equal links, any).
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (pair[i][j] == bound) return RingBound{i, j, bound};
  return std::nullopt;
}

}  // namespace labcheck::reference

// Per-pair expectations for GPU→GPU copies (reference/peer_link.h) and the ring's bottleneck.
#include "reference/peer_link.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace labcheck::reference {
namespace {

const GpuCatalog& Catalog() { return GpuCatalog::Builtin(); }

PeerCard Card(const char* id) {
  PeerCard c;
  c.spec = Catalog().FindById(id);
  return c;
}

PeerLink Link(const char* cell, std::optional<bool> p2p) {
  PeerLink link = ParseTopologyCell(cell).value_or(PeerLink{});
  link.p2p = p2p;
  return link;
}

TEST(PeerLink, TopologyCells) {
  EXPECT_EQ(ParseTopologyCell("NV12")->nvlinks, 12);
  EXPECT_EQ(ParseTopologyCell("SYS")->pcie_level, "SYS");
  EXPECT_TRUE(ParseTopologyCell("PIX")->topology_known);
  EXPECT_FALSE(ParseTopologyCell("X").has_value());
  EXPECT_FALSE(ParseTopologyCell("?").has_value());
  EXPECT_FALSE(ParseTopologyCell("NV").has_value());
  EXPECT_FALSE(ParseTopologyCell("NVx").has_value());
}

TEST(PeerLink, CatalogCarriesPerLinkRates) {
  const GpuSpec* a100 = Catalog().FindById("a100-pcie-80gb");
  ASSERT_TRUE(a100 && a100->nvlink);
  EXPECT_DOUBLE_EQ(a100->nvlink->link_gbps, 25);
  EXPECT_EQ(a100->nvlink->bridge_links, 12);
  const GpuSpec* rtx3090 = Catalog().FindById("rtx-3090");
  ASSERT_TRUE(rtx3090 && rtx3090->nvlink);
  EXPECT_DOUBLE_EQ(rtx3090->nvlink->links * rtx3090->nvlink->link_gbps, 56.25);  // GA102 whitepaper, one way
  EXPECT_EQ(Catalog().FindById("h100-sxm")->nvlink->bridge_links, 0);            // a board: no bridges
  EXPECT_FALSE(Catalog().FindById("rtx-4090")->nvlink.has_value());
}

TEST(PeerLink, EachPairAgainstItsOwnLink) {
  const PeerCard a = Card("a100-pcie-80gb"), b = Card("a100-pcie-80gb");
  const PeerExpectation nv = ExpectPeerCopy(Link("NV12", true), a, b, Catalog());
  EXPECT_EQ(nv.path, PeerPath::NvLink);
  ASSERT_TRUE(nv.band);
  EXPECT_DOUBLE_EQ(nv.band->low, 12 * 25 * 0.80);
  EXPECT_DOUBLE_EQ(nv.band->high, 12 * 25 * 0.90);
  EXPECT_FALSE(nv.problem);

  const PeerExpectation pcie = ExpectPeerCopy(Link("PXB", true), a, b, Catalog());
  EXPECT_EQ(pcie.path, PeerPath::Pcie);
  EXPECT_DOUBLE_EQ(pcie.band->low, 20);  // PCIe 4.0 x16 in practice
  EXPECT_DOUBLE_EQ(pcie.band->high, 26);

  // Without P2P: at best the two host copies overlap (the rated link's practice band), at worst
  // they run one after the other (half of its low edge). From the ratings, not from measured copies.
  const PeerExpectation host = ExpectPeerCopy(Link("SYS", false), a, b, Catalog());
  EXPECT_EQ(host.path, PeerPath::Host);
  EXPECT_DOUBLE_EQ(host.band->high, 26);
  EXPECT_DOUBLE_EQ(host.band->low, 10);
}

TEST(PeerLink, TheSlowerCardsLinkBoundsPcie) {
  // A V100 PCIe (rated PCIe 3.0 x16) beside an A100 PCIe (4.0 x16): the V100's link bounds the pair.
  const PeerExpectation e = ExpectPeerCopy(Link("PHB", true), Card("a100-pcie-80gb"), Card("v100-pcie-32gb"), Catalog());
  EXPECT_DOUBLE_EQ(e.band->high, 13);
}

TEST(PeerLink, ANvLinkPairThatDoesNotBehaveAsItsLinkIsAProblem) {
  const PeerCard a = Card("a100-pcie-80gb"), b = Card("a100-pcie-80gb");
  const PeerExpectation no_p2p = ExpectPeerCopy(Link("NV12", false), a, b, Catalog());
  ASSERT_TRUE(no_p2p.problem);
  EXPECT_NE(no_p2p.problem->en.find("no P2P"), std::string::npos);
  EXPECT_DOUBLE_EQ(no_p2p.band->low, 240);  // still judged against NVLink: the copy will be far below
  const PeerExpectation short_of_bridges = ExpectPeerCopy(Link("NV4", true), a, b, Catalog());
  ASSERT_TRUE(short_of_bridges.problem);
  EXPECT_NE(short_of_bridges.problem->en.find("12 links"), std::string::npos);
  EXPECT_DOUBLE_EQ(short_of_bridges.band->high, 4 * 25 * 0.90);
  // A board (SXM) has no bridges to miss: NV18 on an HGX is simply NV18.
  EXPECT_FALSE(ExpectPeerCopy(Link("NV18", true), Card("h100-sxm"), Card("h100-sxm"), Catalog()).problem);
}

TEST(PeerLink, UnknownTopology) {
  PeerLink unknown;
  unknown.p2p = true;
  // SXM boards with P2P: NVLink with every link the card has.
  const PeerExpectation sxm = ExpectPeerCopy(unknown, Card("h100-sxm"), Card("h100-sxm"), Catalog());
  EXPECT_EQ(sxm.path, PeerPath::NvLink);
  EXPECT_DOUBLE_EQ(sxm.band->low, 18 * 25 * 0.80);
  // PCIe cards that may or may not be bridged: from PCIe up to NVLink, so neither is "off".
  const PeerExpectation a100 = ExpectPeerCopy(unknown, Card("a100-pcie-80gb"), Card("a100-pcie-80gb"), Catalog());
  EXPECT_DOUBLE_EQ(a100.band->low, 20);
  EXPECT_DOUBLE_EQ(a100.band->high, 12 * 25 * 0.90);
}

TEST(RingBottleneck, ARingThroughAPcieOnlyPairIsBoundByPcie) {
  // NVLink chain 0-1-2-3 (a path, not a ring), every other pair PCIe: a ring must close over PCIe.
  std::vector<std::vector<double>> g(4, std::vector<double>(4, 26));
  for (auto [i, j] : std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}) g[i][j] = g[j][i] = 270;
  auto bound = RingBottleneck(g);
  ASSERT_TRUE(bound);
  EXPECT_DOUBLE_EQ(bound->gbps, 26);
  // Close the ring with NVLink 3-0: now it is NVLink all the way.
  g[3][0] = g[0][3] = 270;
  bound = RingBottleneck(g);
  ASSERT_TRUE(bound);
  EXPECT_DOUBLE_EQ(bound->gbps, 270);
}

TEST(RingBottleneck, BridgedPairsStillCrossTheSlowLinksTwice) {
  std::vector<std::vector<double>> g(4, std::vector<double>(4, 24));
  g[0][1] = g[1][0] = g[2][3] = g[3][2] = 270;
  g[1][2] = 25;  // one cross pair a little faster: the best ring still needs two cross links
  auto bound = RingBottleneck(g);
  ASSERT_TRUE(bound);
  EXPECT_DOUBLE_EQ(bound->gbps, 24);
  EXPECT_FALSE(RingBottleneck({{0}}).has_value());
  EXPECT_DOUBLE_EQ(RingBottleneck({{0, 50}, {40, 0}})->gbps, 40);  // two cards: the slower direction
  g[1][3] = -1;  // a pair of unknown speed: no bound claimed
  EXPECT_FALSE(RingBottleneck(g).has_value());
}

}  // namespace
}  // namespace labcheck::reference

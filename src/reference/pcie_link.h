// PCIe arithmetic, the one source every module uses: a link's one-direction limit after line
// encoding (8b/10b for gens 1–2, 128b/130b for 3–5, FLIT for 6), before protocol overhead. The
// catalog's table (data/gpus.json "pcie") adds what copies reach in practice and must agree with it.
#pragma once
#include <optional>
#include <vector>

#include "core/text.h"

namespace labcheck::reference {

// GB/s (10^9 B/s) one direction; 0 for an unknown generation or width.
double PcieLimitGbps(int generation, int width);

// A card's link as it ran, against what the card is rated for: the measured fact that explains a
// slow copy or all-reduce without moving its reference (issue 38: a card on a riser trained at
// PCIe 3.0 x4 while the card is 4.0 x16). Each caller reads the link from its own data (NVML's
// link under load, else the driver's maximum for card and slot).
struct RanLink {
  int gpu = 0;
  int gen = 0, width = 0;              // as it ran (0: unknown)
  bool under_load = false;             // read while copies ran, not the driver's idle maximum
  int rated_gen = 0, rated_width = 0;  // the card's own, from the catalog
};

// True when the link ran below the card's rating in generation or width (both known).
bool BelowRating(const RanLink& link);

// Of the links below their rating, the slowest (lowest PCIe limit); nullopt when none is.
std::optional<RanLink> SlowestBelowRating(const std::vector<RanLink>& links);

// «канал GPU 1: PCIe 3.0 x4 под нагрузкой, карта рассчитана на 4.0 x16» /
// "GPU 1's link: PCIe 3.0 x4 under load, the card is rated 4.0 x16".
Text DescribeLinkBelowRating(const RanLink& link);

}  // namespace labcheck::reference

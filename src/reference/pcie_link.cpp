#include "reference/pcie_link.h"

#include <fmt/format.h>

namespace labcheck::reference {

// PCI-SIG, PCI Express Base Specification 3.0–6.0 (https://pcisig.com/specifications): GT/s per
// lane and line encoding per generation.
double PcieLimitGbps(int generation, int width) {
  double per_lane_gbps = 0;  // after encoding, one direction
  switch (generation) {
    case 1: per_lane_gbps = 2.5 * 8 / 10 / 8; break;
    case 2: per_lane_gbps = 5.0 * 8 / 10 / 8; break;
    case 3: per_lane_gbps = 8.0 * 128 / 130 / 8; break;
    case 4: per_lane_gbps = 16.0 * 128 / 130 / 8; break;
    case 5: per_lane_gbps = 32.0 * 128 / 130 / 8; break;
    case 6: per_lane_gbps = 64.0 * 242 / 256 / 8; break;  // FLIT: 242 payload bytes in 256
    default: return 0;
  }
  return width > 0 ? per_lane_gbps * width : 0;
}

bool BelowRating(const RanLink& link) {
  if (link.gen <= 0 || link.width <= 0 || link.rated_gen <= 0 || link.rated_width <= 0) return false;
  return link.gen < link.rated_gen || link.width < link.rated_width;
}

std::optional<RanLink> SlowestBelowRating(const std::vector<RanLink>& links) {
  std::optional<RanLink> slowest;
  for (const RanLink& l : links) {
    if (!BelowRating(l)) continue;
    if (!slowest || PcieLimitGbps(l.gen, l.width) < PcieLimitGbps(slowest->gen, slowest->width)) slowest = l;
  }
  return slowest;
}

Text DescribeLinkBelowRating(const RanLink& link) {
  const char* how_ru = link.under_load ? "под нагрузкой" : "по данным драйвера";
  const char* how_en = link.under_load ? "under load" : "as the driver reports it";
  return T(fmt::format("канал GPU {}: PCIe {}.0 x{} {}, карта рассчитана на {}.0 x{} (райзер, слот или BIOS)", link.gpu,
                       link.gen, link.width, how_ru, link.rated_gen, link.rated_width),
           fmt::format("GPU {}'s link: PCIe {}.0 x{} {}, the card is rated {}.0 x{} (riser, slot or BIOS)", link.gpu,
                       link.gen, link.width, how_en, link.rated_gen, link.rated_width));
}

}  // namespace labcheck::reference

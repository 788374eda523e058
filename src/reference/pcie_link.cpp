#include "reference/pcie_link.h"

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

}  // namespace labcheck::reference

#include "gpu/pcie.h"

#include <fmt/format.h>

namespace labcheck::gpu {

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

PcieAssessment AssessPcie(double measured_gbps, int max_gen, int max_width, std::optional<int> gen_under_load,
                          std::optional<int> width_under_load) {
  PcieAssessment a;
  const Text hint = T("карта работает как PCIe 3.0 или x8: проверьте слот, райзер и настройки PCIe в BIOS",
                      "the card runs like PCIe 3.0 or x8: check the slot, the riser and the PCIe settings in the BIOS");
  if (gen_under_load && width_under_load && max_gen > 0 && max_width > 0 &&
      (*gen_under_load < max_gen || *width_under_load < max_width)) {
    a.slow = true;
    a.finding = T(fmt::format("под нагрузкой связь PCIe {}.0 x{}, а карта и слот умеют PCIe {}.0 x{}", *gen_under_load,
                              *width_under_load, max_gen, max_width),
                  fmt::format("under load the link runs PCIe {}.0 x{}, while the card and slot can do PCIe {}.0 x{}",
                              *gen_under_load, *width_under_load, max_gen, max_width));
    a.hint = hint;
    return a;
  }
  double limit = PcieLimitGbps(max_gen, max_width);
  // Pinned copies reach 75–90% of the limit on a healthy link; at most 55% is what a link with half
  // the bandwidth (one generation down, or half the lanes) gives.
  if (limit > 0 && measured_gbps > 0 && measured_gbps < 0.55 * limit) {
    a.slow = true;
    a.finding = T(fmt::format("{:.1f} ГБ/с — это {:.0f}% предела PCIe {}.0 x{} ({:.1f} ГБ/с)", measured_gbps,
                              100 * measured_gbps / limit, max_gen, max_width, limit),
                  fmt::format("{:.1f} GB/s is {:.0f}% of the PCIe {}.0 x{} limit ({:.1f} GB/s)", measured_gbps,
                              100 * measured_gbps / limit, max_gen, max_width, limit));
    a.hint = hint;
  }
  return a;
}

}  // namespace labcheck::gpu

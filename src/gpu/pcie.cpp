#include "gpu/pcie.h"

#include <fmt/format.h>

#include "reference/hints.h"
#include "reference/pcie_link.h"

namespace labcheck::gpu {

PcieAssessment AssessPcie(double measured_gbps, int max_gen, int max_width, std::optional<int> gen_under_load,
                          std::optional<int> width_under_load) {
  PcieAssessment a;
  const Text hint = hint::Action(hint::kPcieGen3);
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
  const double limit = reference::PcieLimitGbps(max_gen, max_width);
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

#include "reference/mig_slice.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace labcheck::reference {

std::string MigParentName(const std::string& device_name) {
  const size_t at = device_name.find(" MIG ");
  return at == std::string::npos ? device_name : device_name.substr(0, at);
}

namespace {

// The largest "<N>GB" in a device name, GiB as the catalog matches it; 0 when there is none.
double CardMemoryInName(const std::string& name) {
  double best = 0;
  for (size_t at = name.find("GB"); at != std::string::npos; at = name.find("GB", at + 2)) {
    size_t start = at;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(name[start - 1]))) --start;
    if (start < at) best = std::max(best, std::stod(name.substr(start, at - start)));
  }
  return best;
}

// The slice's share of the card's SMs: its own SMs over the card's where the catalog has the
// card's count; else its compute slices over the card's (NVIDIA's MIG user guide, "Supported MIG
// Profiles": a profile "Ng" has the fraction N/7 of the SMs on the cards with 7 slices, N/4 on the
// A30); nullopt when neither is known.
std::optional<double> SmShare(const GpuSpec& card, const std::string& device_name, int sm_count) {
  if (card.sm_count > 0) return static_cast<double>(sm_count) / card.sm_count;
  const int slices = MigComputeSlices(device_name);
  if (card.mig_compute_slices > 0 && slices > 0 && slices <= card.mig_compute_slices)
    return static_cast<double>(slices) / card.mig_compute_slices;
  return std::nullopt;
}

}  // namespace

std::optional<GpuSpec> MigSliceSpec(const GpuCatalog& catalog, const std::string& device_name, int sm_count,
                                    double memory_gib) {
  if (!IsMigSlice(device_name) || sm_count <= 0 || memory_gib <= 0) return std::nullopt;
  // The whole card's memory as its name gives it ("NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"):
  // the catalog tells the 40 GB card from the 80 GB one by it.
  const GpuSpec* card = catalog.Match(MigParentName(device_name), CardMemoryInName(MigParentName(device_name)));
  if (card == nullptr || card->memory_gib <= 0) return std::nullopt;
  const std::optional<double> share = SmShare(*card, device_name, sm_count);
  if (!share) return std::nullopt;
  const double sm_share = *share;
  const double memory_share = memory_gib / card->memory_gib;
  GpuSpec slice = *card;
  slice.id = card->id + "-mig";
  slice.name = device_name;
  slice.name_ru.clear();  // the driver's name, no words of ours
  slice.memory_gib = memory_gib;
  slice.sm_count = sm_count;
  for (std::optional<double>* tflops : {&slice.bf16_tflops, &slice.fp16_tflops, &slice.fp16_fp16acc_tflops,
                                        &slice.tf32_tflops, &slice.fp8_tflops})
    if (*tflops) **tflops *= sm_share;
  if (slice.memory_bandwidth_gbps) *slice.memory_bandwidth_gbps *= memory_share;
  slice.nvlink_gbps.reset();
  slice.nvlink.reset();
  slice.note = card->sm_count > 0
                   ? fmt::format("MIG slice: {} of {} SMs, {:.2f} of {:.0f} GiB of the {}", sm_count, card->sm_count, memory_gib,
                                 card->memory_gib, card->name)
                   : fmt::format("MIG slice: {} of {} compute slices ({} SMs), {:.2f} of {:.0f} GiB of the {}",
                                 MigComputeSlices(device_name), card->mig_compute_slices, sm_count, memory_gib,
                                 card->memory_gib, card->name);
  return slice;
}

}  // namespace labcheck::reference

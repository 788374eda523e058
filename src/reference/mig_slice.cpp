#include "reference/mig_slice.h"

#include <fmt/format.h>

namespace labcheck::reference {

std::string MigParentName(const std::string& device_name) {
  const size_t at = device_name.find(" MIG ");
  return at == std::string::npos ? device_name : device_name.substr(0, at);
}

std::optional<GpuSpec> MigSliceSpec(const GpuCatalog& catalog, const std::string& device_name, int sm_count,
                                    double memory_gib) {
  if (!IsMigSlice(device_name) || sm_count <= 0 || memory_gib <= 0) return std::nullopt;
  const GpuSpec* card = catalog.Match(MigParentName(device_name), 0);
  if (card == nullptr || card->sm_count <= 0 || card->memory_gib <= 0) return std::nullopt;
  const double sm_share = static_cast<double>(sm_count) / card->sm_count;
  const double memory_share = memory_gib / card->memory_gib;
  GpuSpec slice = *card;
  slice.id = card->id + "-mig";
  slice.name = device_name;
  slice.memory_gib = memory_gib;
  slice.sm_count = sm_count;
  for (std::optional<double>* tflops : {&slice.bf16_tflops, &slice.fp16_tflops, &slice.fp16_fp16acc_tflops,
                                        &slice.tf32_tflops, &slice.fp8_tflops})
    if (*tflops) **tflops *= sm_share;
  if (slice.memory_bandwidth_gbps) *slice.memory_bandwidth_gbps *= memory_share;
  slice.nvlink_gbps.reset();
  slice.nvlink.reset();
  slice.note = fmt::format("MIG slice: {} of {} SMs, {:.2f} of {:.0f} GiB of the {}", sm_count, card->sm_count, memory_gib,
                           card->memory_gib, card->name);
  return slice;
}

}  // namespace labcheck::reference

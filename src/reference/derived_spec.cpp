#include "reference/derived_spec.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/text_util.h"

namespace labcheck::reference {
namespace {

// How the tensor figure was estimated, with the datasheet the per-SM rate comes from.
Text TensorHow(const TensorRate& rate, const DriverFacts& facts, bool geforce) {
  return T(fmt::format("тензорные TFLOPS = {} FLOP/такт/SM × {} SM × {:.0f} МГц{} ({})", rate.fp16_flop_per_clock_per_sm,
                       facts.sm_count, *facts.max_sm_clock_mhz, geforce ? " × 0.5 (GeForce, накопление в FP32)" : "",
                       rate.source.ru),
           fmt::format("tensor TFLOPS = {} FLOP/clock/SM × {} SM × {:.0f} MHz{} ({})", rate.fp16_flop_per_clock_per_sm,
                       facts.sm_count, *facts.max_sm_clock_mhz, geforce ? " × 0.5 (GeForce, FP32 accumulation)" : "",
                       rate.source.en));
}

}  // namespace

GpuSpec DeriveSpec(const DriverFacts& facts, const GpuCatalog& catalog) {
  GpuSpec spec;
  spec.id = "derived";
  spec.name = facts.name;
  spec.cc_major = facts.cc_major;
  spec.cc_minor = facts.cc_minor;
  spec.memory_gib = facts.memory_gib;
  spec.pcie_gen = facts.pcie_gen_max.value_or(0);
  spec.pcie_width = facts.pcie_width_max.value_or(0);
  const std::vector<std::string> words = DeviceNameWords(facts.name);
  spec.geforce = std::find(words.begin(), words.end(), "geforce") != words.end();

  std::vector<Text> how;  // one line per figure estimated, in both report languages
  const DerivedRules& rules = catalog.derived_rules();
  const TensorRate* rate = nullptr;
  for (const TensorRate& r : rules.tensor_rates) {
    if (r.cc_major == facts.cc_major && r.cc_minor == facts.cc_minor) rate = &r;
  }
  if (rate != nullptr && facts.sm_count > 0 && facts.max_sm_clock_mhz) {
    const double factor = spec.geforce ? rules.geforce_fp32_accumulate_factor : 1.0;
    const double tflops = rate->fp16_flop_per_clock_per_sm * facts.sm_count * *facts.max_sm_clock_mhz * 1e6 * factor / 1e12;
    spec.fp16_tflops = tflops;
    // BF16 tensor cores arrived with compute capability 8.0 and run at the FP16 rate.
    if (facts.cc_major >= 8) spec.bf16_tflops = tflops;
    how.push_back(TensorHow(*rate, facts, spec.geforce));
  }
  if (facts.max_memory_clock_mhz && facts.memory_bus_width_bits) {
    spec.memory_bandwidth_gbps = 2.0 * *facts.max_memory_clock_mhz * 1e6 * *facts.memory_bus_width_bits / 8 / 1e9;
    how.push_back(T(fmt::format("память ГБ/с = 2 × {:.0f} МГц × {} бит / 8", *facts.max_memory_clock_mhz,
                                *facts.memory_bus_width_bits),
                    fmt::format("memory GB/s = 2 × {:.0f} MHz × {} bit / 8", *facts.max_memory_clock_mhz,
                                *facts.memory_bus_width_bits)));
  }
  spec.source = how.empty() ? T("драйвер сообщил слишком мало, чтобы оценить хоть одну цифру",
                                "derived: the driver reported too little to estimate any figure")
                            : Join({T("оценка по данным драйвера: ", "derived from the driver's figures: "), Join(how, "; ")}, "");
  spec.note = "Not in the reference catalog: estimated figures, not a datasheet.";
  return spec;
}

}  // namespace labcheck::reference

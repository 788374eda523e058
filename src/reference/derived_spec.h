// Figures for a GPU the catalog does not list, estimated from what the driver reports (SM count,
// clocks, memory bus width) with the per-architecture rates in data/gpus.json. Every unknown GPU
// still gets a row in the report; these figures are marked "derived", never passed off as a
// datasheet.
#pragma once
#include <optional>
#include <string>

#include "reference/gpu_catalog.h"

namespace labcheck::reference {

// What the driver says about one device (gpu.inventory in docs/report-schema.md).
struct DriverFacts {
  std::string name;
  double memory_gib = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::optional<double> max_sm_clock_mhz;
  std::optional<double> max_memory_clock_mhz;
  std::optional<int> memory_bus_width_bits;
  std::optional<int> pcie_gen_max;
  std::optional<int> pcie_width_max;
};

// A GpuSpec with id "derived": the figures that could be estimated are set, the rest stay empty,
// `source` says how each was computed. GeForce cards (by name) get the halved FP32-accumulate rate.
GpuSpec DeriveSpec(const DriverFacts& facts, const GpuCatalog& catalog);

}  // namespace labcheck::reference

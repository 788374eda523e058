// A MIG slice's own figures: the whole card's, scaled by the slice's share of the card. CUDA and
// NVML name a slice "<card> MIG <profile>" ("NVIDIA H100 80GB HBM3 MIG 1g.10gb"; IsMigSlice) and
// report its own multiprocessors and memory; the catalog knows the whole card. A slice gets its
// share of the card's SMs (tensor throughput) and of its memory (size, and bandwidth: assumed to go
// with the memory, as NVIDIA's MIG user guide, "Supported MIG Profiles", gives each profile the same
// fraction of memory and of L2 cache). Where the share cannot be known (the card is not in the
// catalog, or the file gives no SM count for it) there is no spec: not comparable.
#pragma once
#include <optional>
#include <string>

#include "reference/gpu_catalog.h"

namespace labcheck::reference {

// The device name without " MIG <profile>": the whole card's name as the catalog matches it.
std::string MigParentName(const std::string& device_name);

// The slice's spec, or nullopt when `device_name` is not a slice or its share cannot be known.
// `sm_count` and `memory_gib` are the slice's own, as cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)
// and cuDeviceTotalMem report them. No NVLink: MIG devices do not do P2P (the guide's profiles
// list "P2P: No").
std::optional<GpuSpec> MigSliceSpec(const GpuCatalog& catalog, const std::string& device_name, int sm_count,
                                    double memory_gib);

}  // namespace labcheck::reference

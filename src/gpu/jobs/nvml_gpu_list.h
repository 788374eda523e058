// The cards the driver has, as NVML lists them: NVML ignores CUDA_VISIBLE_DEVICES and answers while
// cuInit fails (no device visible, the fabric manager down), so this list is what nvidia-smi shows
// whatever CUDA sees. gpu-inventory records it as "nvml_gpus" beside CUDA's own "gpus"
// (docs/report-schema.md); the report's facts compare the two (src/facts/run_facts.h).
#pragma once
#include <nlohmann/json.hpp>

#include "gpu/jobs/gpu_runtime.h"  // KeepUntilExit
#include "gpu/nvidia/nvml_library.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

// [{"index", "name", "pci_bus_id"}] in NVML's order (PCI bus order); null when NVML cannot count.
nlohmann::json NvmlGpuList(const Nvml& nvml);
// Where CUDA failed: {"nvml_gpus": list or null, "driver_version": NVML's or null}, with NVML
// loaded from `paths` for this call alone.
nlohmann::json NvmlView(const LibrarySearchPaths& paths);

}  // namespace labcheck::gpu

// The NVLink twin of the PCIe replay counter: per active link, the data link's replay, recovery and
// CRC error counters (nvmlDeviceGetNvLinkErrorCounter), read before and after node-check's own load.
// A failing link shows there first (DCGM, Meta's gcm and Azure's health checks watch the same
// counters); growth while only lab_check's work ran is a link failing now.
#pragma once
#include <nlohmann/json.hpp>

#include "gpu/nvidia/nvml_api.h"
#include "gpu/nvidia/nvml_health_api.h"

namespace labcheck::gpu::health {

// [{"link": 3, "replay": 0, "recovery": 0, "crc_flit": 0, "crc_data": 0}, …] for each active link
// (a counter the driver does not give is left out), or {"na": why}.
nlohmann::json ReadNvLinkErrorCounters(const nvml::NvmlApi& base, const nvml::NvmlHealthApi& h, nvml::nvmlDevice_t device);

// `after` with "<counter>_growth" on each link also read `before` (counters that went down, as
// after a reset, grow by 0).
nlohmann::json NvLinkErrorGrowth(const nlohmann::json& before, nlohmann::json after);

}  // namespace labcheck::gpu::health

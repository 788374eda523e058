// NVML's answers about links between the local GPUs, turned into the pure TopologyInput of
// topology.h: the PCIe common ancestor of each pair and NVLink counts.
//
// NVLink through NVSwitch (HGX/DGX boards): every link of a GPU ends at a switch, never at the
// other GPU, so matching a link's far-end PCI address against the local GPUs finds nothing. A link
// counts for pair (i, j) when its far end is GPU j, or when it ends at an NVSwitch
// (nvmlDeviceGetNvLinkRemoteDeviceType says NVML_NVLINK_DEVICE_TYPE_SWITCH) and NVML says the
// pair talks over NVLink (nvmlDeviceGetP2PStatus with NVML_P2P_CAPS_INDEX_NVLINK); then i's
// switch links are the pair's, as `nvidia-smi topo -m` prints NV18 for every pair of an HGX H100.
// Without the P2P query (old driver) both GPUs having switch links is taken as one fabric; without
// the device-type query a link whose far end is no local GPU counts only if NVML's P2P status
// confirms NVLink for the pair.
#pragma once
#include <string>
#include <vector>

#include "gpu/nvidia/nvml_api.h"
#include "gpu/topology.h"

namespace labcheck::gpu {

// devices[i]: NVML's handle for CUDA ordinal i (null when NVML does not know it); bus_ids[i]: its
// canonical PCI bus id (CanonicalPciBusId).
// One GPU's NVLinks as nvmlDeviceGetNvLinkState answers link by link: `active` (enabled), `down`
// (the link exists and answers, but is not active). A link number that answers "not supported" or
// "invalid argument" is not one the GPU has and is in neither count (the numbering may have gaps).
struct NvLinkStates {
  int active = 0;
  int down = 0;
  bool queried = false;  // false: no NVML function for it (old driver) or no handle
};
NvLinkStates ReadNvLinkStates(const nvml::NvmlApi& api, nvml::nvmlDevice_t device);

TopologyInput ReadNvmlTopology(const nvml::NvmlApi& api, const std::vector<nvml::nvmlDevice_t>& devices,
                               const std::vector<std::string>& bus_ids);

}  // namespace labcheck::gpu

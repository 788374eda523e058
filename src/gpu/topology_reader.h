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
TopologyInput ReadNvmlTopology(const nvml::NvmlApi& api, const std::vector<nvml::nvmlDevice_t>& devices,
                               const std::vector<std::string>& bus_ids);

}  // namespace labcheck::gpu

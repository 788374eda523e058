#include "gpu/topology_reader.h"

#include <optional>

#include "gpu/nvidia/nvml_library.h"

namespace labcheck::gpu {

namespace {

// Where one GPU's active links lead.
struct LinkEnds {
  std::vector<int> to_gpu;  // [j]: links whose far end is local GPU j
  int to_switch = 0;        // far end is an NVSwitch
  int elsewhere = 0;        // far end is no local GPU, and NVML cannot say what it is
};

LinkEnds ReadLinks(const nvml::NvmlApi& n, nvml::nvmlDevice_t device, const std::vector<std::string>& bus_ids) {
  LinkEnds ends;
  ends.to_gpu.assign(bus_ids.size(), 0);
  if (n.nvmlDeviceGetNvLinkState == nullptr) return ends;
  for (unsigned link = 0; link < nvml::kNvLinkMaxLinks; ++link) {
    nvml::nvmlEnableState_t active = 0;
    // Links the GPU does not have answer "not supported" or "invalid argument": go on, the
    // numbering may have gaps.
    if (n.nvmlDeviceGetNvLinkState(device, link, &active) != nvml::kSuccess || active != nvml::kFeatureEnabled) continue;
    nvml::nvmlIntNvLinkDeviceType_t type = nvml::kNvLinkDeviceTypeUnknown;
    if (n.nvmlDeviceGetNvLinkRemoteDeviceType != nullptr &&
        n.nvmlDeviceGetNvLinkRemoteDeviceType(device, link, &type) != nvml::kSuccess)
      type = nvml::kNvLinkDeviceTypeUnknown;
    if (type == nvml::kNvLinkDeviceTypeSwitch) {
      ++ends.to_switch;
      continue;
    }
    bool matched = false;
    nvml::nvmlPciInfo_t remote{};
    if (n.nvmlDeviceGetNvLinkRemotePciInfo != nullptr &&
        n.nvmlDeviceGetNvLinkRemotePciInfo(device, link, &remote) == nvml::kSuccess) {
      const std::string peer = CanonicalPciBusId(remote.busId);
      for (size_t j = 0; j < bus_ids.size(); ++j) {
        if (!peer.empty() && bus_ids[j] == peer) {
          ++ends.to_gpu[j];
          matched = true;
        }
      }
    }
    if (!matched && type == nvml::kNvLinkDeviceTypeUnknown) ++ends.elsewhere;
  }
  return ends;
}

// Whether NVML says the pair can talk over NVLink; nullopt when it cannot be asked.
std::optional<bool> NvLinkP2P(const nvml::NvmlApi& n, nvml::nvmlDevice_t a, nvml::nvmlDevice_t b) {
  if (n.nvmlDeviceGetP2PStatus == nullptr) return std::nullopt;
  nvml::nvmlGpuP2PStatus_t status = -1;
  if (n.nvmlDeviceGetP2PStatus(a, b, nvml::kP2PCapsIndexNvLink, &status) != nvml::kSuccess) return std::nullopt;
  return status == nvml::kP2PStatusOk;
}

}  // namespace

NvLinkStates ReadNvLinkStates(const nvml::NvmlApi& n, nvml::nvmlDevice_t device) {
  NvLinkStates states;
  if (n.nvmlDeviceGetNvLinkState == nullptr || device == nullptr) return states;
  states.queried = true;
  for (unsigned link = 0; link < nvml::kNvLinkMaxLinks; ++link) {
    nvml::nvmlEnableState_t active = 0;
    if (n.nvmlDeviceGetNvLinkState(device, link, &active) != nvml::kSuccess) continue;  // no such link
    if (active == nvml::kFeatureEnabled) ++states.active;
    else ++states.down;
  }
  return states;
}

TopologyInput ReadNvmlTopology(const nvml::NvmlApi& n, const std::vector<nvml::nvmlDevice_t>& devices,
                               const std::vector<std::string>& bus_ids) {
  const int count = static_cast<int>(devices.size());
  TopologyInput input;
  input.count = count;
  input.nvlinks.assign(count, std::vector<int>(count, 0));
  input.pcie_levels.assign(count, std::vector<int>(count, -1));
  std::vector<LinkEnds> ends(count);
  for (int i = 0; i < count; ++i) {
    if (devices[i] == nullptr) continue;
    for (int j = 0; j < count; ++j) {
      nvml::nvmlGpuTopologyLevel_t level = 0;
      if (i != j && devices[j] != nullptr && n.nvmlDeviceGetTopologyCommonAncestor != nullptr &&
          n.nvmlDeviceGetTopologyCommonAncestor(devices[i], devices[j], &level) == nvml::kSuccess)
        input.pcie_levels[i][j] = level;
    }
    ends[i] = ReadLinks(n, devices[i], bus_ids);
  }
  for (int i = 0; i < count; ++i) {
    for (int j = 0; j < count; ++j) {
      if (i == j || devices[i] == nullptr || devices[j] == nullptr) continue;
      const LinkEnds& a = ends[i];
      const LinkEnds& b = ends[j];
      if (!a.to_gpu.empty() && a.to_gpu[j] > 0) {
        input.nvlinks[i][j] = a.to_gpu[j];
        continue;
      }
      const std::optional<bool> p2p = NvLinkP2P(n, devices[i], devices[j]);
      if (a.to_switch > 0 && b.to_switch > 0 && p2p.value_or(true)) {
        input.nvlinks[i][j] = a.to_switch + a.elsewhere;
      } else if (a.to_switch + a.elsewhere > 0 && b.to_switch + b.elsewhere > 0 && p2p.value_or(false)) {
        input.nvlinks[i][j] = a.to_switch + a.elsewhere;
      }
    }
  }
  return input;
}

}  // namespace labcheck::gpu

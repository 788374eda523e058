// libnvidia-ml.so.1 sim: how GPUs are connected: PCIe common ancestor, NVLink links (to a peer
// GPU or to an NVSwitch), P2P status, the CPUs nearest each GPU.
#include "core/interconnect.h"
#include "core/numa.h"
#include "nvml/nvml_internal.h"

using namespace nvmlsim;

namespace {

constexpr unsigned kMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS in NVML 12.x (36 in 13.x headers)

nvmlReturn_t Link(nvmlDevice_t device, unsigned link, nvsim::NvLink* out) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  const std::vector<nvsim::NvLink> links = nvsim::NvLinks(g->index);
  if (links.empty()) return kNotSupported;
  if (link >= kMaxLinks * 2) return kInvalidArgument;
  if (link >= links.size()) return kNotSupported;
  *out = links[link];
  return kSuccess;
}

}  // namespace

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetTopologyCommonAncestor, (nvmlDevice_t a, nvmlDevice_t b, int* level)) {
  const nvsim::Gpu *ga = Check(a), *gb = Check(b);
  if (ga == nullptr || gb == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (level == nullptr) return kInvalidArgument;
  *level = ga == gb ? 0 : nvsim::TopologyLevel(ga->index, gb->index);
  return kSuccess;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetNvLinkState, (nvmlDevice_t device, unsigned link, int* active)) {
  if (active == nullptr) return kInvalidArgument;
  nvsim::NvLink l;
  nvmlReturn_t r = Link(device, link, &l);
  if (r == kSuccess) *active = l.active ? 1 : 0;
  return r;
}

// nvml.h: NVML_ERROR_INVALID_ARGUMENT for a bad device, link or counter (nvmlNvLinkErrorCounter_t:
// DL_REPLAY 0, DL_RECOVERY 1, DL_CRC_FLIT 2, DL_CRC_DATA 3, DL_ECC_DATA 4) or a NULL value;
// NOT_SUPPORTED where the GPU has no NVLink. Every counter reads 0 but those "health/nvlink_errors"
// lists, each entry one link's counter with its own start and growth.
static int NvLinkCounterIndex(const std::string& name) {
  static const char* const kNames[] = {"replay", "recovery", "crc_flit", "crc_data", "ecc_data"};
  for (int i = 0; i < 5; ++i)
    if (name == kNames[i]) return i;
  return -1;
}

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetNvLinkErrorCounter,
             (nvmlDevice_t device, unsigned link, int counter, unsigned long long* value)) {
  nvsim::NvLink l;
  nvmlReturn_t r = Link(device, link, &l);
  if (r != kSuccess) return r;
  if (value == nullptr || counter < 0 || counter > 4) return kInvalidArgument;
  *value = 0;
  const nvsim::Gpu& g = *Check(device);
  const nvsim::json* entries = g.At("health/nvlink_errors");
  if (entries == nullptr || !entries->is_array()) return kSuccess;
  for (const nvsim::json& e : *entries) {
    if (e.value("link", -1) != static_cast<int>(link) || NvLinkCounterIndex(e.value("counter", "")) != counter) continue;
    // The first read is node-check's baseline; each later one has grown.
    *value = GrowingCounter(g, "nvlink/" + std::to_string(link) + "/" + std::to_string(counter), e.value("start", 0.0),
                            e.value("grows_by", 0.0));
  }
  return kSuccess;
}

namespace {

nvmlReturn_t RemotePci(nvmlDevice_t device, unsigned link, nvmlPciInfo_t* pci) {
  if (pci == nullptr) return kInvalidArgument;
  nvsim::NvLink l;
  nvmlReturn_t r = Link(device, link, &l);
  if (r == kSuccess) FillPciInfo(l.remote_bus, l.remote == "gpu" ? 0x233010DEu : 0x22A310DEu, pci);
  return r;
}

}  // namespace

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetNvLinkRemotePciInfo_v2, (nvmlDevice_t device, unsigned link, nvmlPciInfo_t* pci)) {
  return RemotePci(device, link, pci);
}
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetNvLinkRemotePciInfo, (nvmlDevice_t device, unsigned link, nvmlPciInfo_t* pci)) {
  return RemotePci(device, link, pci);
}

// nvmlIntNvLinkDeviceType_t: GPU 0, IBMNPU 1, SWITCH 2, UNKNOWN 0xFF.
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetNvLinkRemoteDeviceType, (nvmlDevice_t device, unsigned link, int* type)) {
  if (type == nullptr) return kInvalidArgument;
  nvsim::NvLink l;
  nvmlReturn_t r = Link(device, link, &l);
  if (r == kSuccess) *type = l.remote == "gpu" ? 0 : l.remote == "nvswitch" ? 2 : 0xFF;
  return r;
}

// nvmlGpuP2PCapsIndex_t: READ 0, WRITE 1, NVLINK 2, ATOMICS 3, PROP 4; nvmlGpuP2PStatus_t: OK 0,
// CHIPSET_NOT_SUPPORTED 1, GPU_NOT_SUPPORTED 2, IOH_TOPOLOGY_NOT_SUPPORTED 3, DISABLED_BY_REGKEY 4,
// NOT_SUPPORTED 5.
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetP2PStatus, (nvmlDevice_t a, nvmlDevice_t b, int caps, int* status)) {
  const nvsim::Gpu *ga = Check(a), *gb = Check(b);
  if (ga == nullptr || gb == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (status == nullptr) return kInvalidArgument;
  if (caps == 2) {
    bool linked = false;
    const auto links = nvsim::NvLinks(ga->index);
    for (const nvsim::NvLink& l : links)
      if (l.active && (l.remote == "nvswitch" || l.peer == gb->index)) linked = true;
    if (linked) {  // through a switch only when the peer has links to one too
      bool peer_has = false;
      for (const nvsim::NvLink& l : nvsim::NvLinks(gb->index))
        if (l.active && (l.remote == "nvswitch" || l.peer == ga->index)) peer_has = true;
      linked = peer_has;
    }
    *status = linked ? 0 : 5;
    return kSuccess;
  }
  *status = nvsim::PeerAccess(ga->index, gb->index) ? 0 : 2;
  return kSuccess;
}

// The CPUs of the GPU's NUMA node (core/numa.h), 64 per unsigned long: `nvidia-smi topo -m`'s
// "CPU Affinity". INVALID_ARGUMENT for a zero size or a null array (nvml.h).
NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetCpuAffinity, (nvmlDevice_t device, unsigned cpu_set_size, unsigned long* cpu_set)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (cpu_set_size == 0 || cpu_set == nullptr) return kInvalidArgument;
  const std::vector<std::vector<int>> nodes = nvsim::NumaNodes();
  const int node = nvsim::GpuNumaNode(*g);
  if (node < 0 || static_cast<size_t>(node) >= nodes.size()) return kNotSupported;
  constexpr unsigned kBits = 8 * sizeof(unsigned long);
  for (unsigned i = 0; i < cpu_set_size; ++i) cpu_set[i] = 0;
  for (int cpu : nodes[node])
    if (cpu >= 0 && static_cast<unsigned>(cpu) / kBits < cpu_set_size) cpu_set[cpu / kBits] |= 1ul << (cpu % kBits);
  return kSuccess;
}

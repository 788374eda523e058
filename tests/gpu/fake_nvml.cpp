// The fake NVML: handles by index and bus id, the PCIe link (trained down at idle, up while work is
// queued), temperatures, NVLink and topology.
#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "fake_internal.h"

namespace labcheck::gpu::fake {

namespace {

using namespace internal;
using namespace cuda;

// --- NVML -----------------------------------------------------------------------------------

int NvmlIndex(nvml::nvmlDevice_t device) {
  int i = static_cast<int>(reinterpret_cast<uintptr_t>(device)) - 1;
  return i >= 0 && i < static_cast<int>(g_machine.gpus.size()) ? i : -1;
}
nvml::nvmlReturn_t NvmlOk() {
  FAKE_LOCK();
  return nvml::kSuccess;
}
nvml::nvmlReturn_t NvmlByBusId(const char* bus_id, nvml::nvmlDevice_t* device) {
  FAKE_LOCK();
  for (size_t i = 0; i < g_machine.gpus.size(); ++i) {
    std::string ours = g_machine.gpus[i].bus_id;
    if (strcasecmp(ours.c_str(), bus_id) == 0 || ("0000" + ours) == bus_id) {
      *device = FakeNvmlDevice(static_cast<int>(i));
      return nvml::kSuccess;
    }
  }
  return nvml::kErrorNotFound;
}
nvml::nvmlReturn_t NvmlCount(unsigned* n) {
  FAKE_LOCK();
  *n = static_cast<unsigned>(g_machine.gpus.size()); return nvml::kSuccess;
}
nvml::nvmlReturn_t NvmlByIndex(unsigned i, nvml::nvmlDevice_t* device) {
  FAKE_LOCK();
  if (i >= g_machine.gpus.size()) return nvml::kErrorInvalidArgument;
  *device = FakeNvmlDevice(static_cast<int>(i));
  return nvml::kSuccess;
}
nvml::nvmlReturn_t CurrGen(nvml::nvmlDevice_t d, unsigned* v) {
  FAKE_LOCK();
  if (NvmlIndex(d) < 0) return nvml::kErrorInvalidArgument;
  const FakeGpu& g = g_machine.gpus[NvmlIndex(d)];
  *v = g_machine.busy ? g.pcie_gen_max : g.pcie_gen_idle;
  return nvml::kSuccess;
}
nvml::nvmlReturn_t CurrWidth(nvml::nvmlDevice_t d, unsigned* v) {
  FAKE_LOCK();
  if (NvmlIndex(d) < 0) return nvml::kErrorInvalidArgument;
  const FakeGpu& g = g_machine.gpus[NvmlIndex(d)];
  *v = g_machine.busy ? g.pcie_width_max : g.pcie_width_idle;
  return nvml::kSuccess;
}
nvml::nvmlReturn_t MaxGen(nvml::nvmlDevice_t d, unsigned* v) {
  FAKE_LOCK();
  *v = g_machine.gpus.at(NvmlIndex(d)).pcie_gen_max; return nvml::kSuccess;
}
nvml::nvmlReturn_t MaxWidth(nvml::nvmlDevice_t d, unsigned* v) {
  FAKE_LOCK();
  *v = g_machine.gpus.at(NvmlIndex(d)).pcie_width_max; return nvml::kSuccess;
}
nvml::nvmlReturn_t Temperature(nvml::nvmlDevice_t, int sensor, unsigned* c) {
  FAKE_LOCK();
  Log("nvmlDeviceGetTemperature");
  if (sensor != nvml::kTemperatureGpu) return nvml::kErrorInvalidArgument;
  *c = g_machine.temperature_c;
  return nvml::kSuccess;
}
nvml::nvmlReturn_t TemperatureV(nvml::nvmlDevice_t, nvml::nvmlTemperature_t* t) {
  FAKE_LOCK();
  Log("nvmlDeviceGetTemperatureV");
  if (t->version != nvml::kTemperatureV1 || t->sensorType != nvml::kTemperatureGpu) return nvml::kErrorInvalidArgument;
  t->temperature = static_cast<int>(g_machine.temperature_v_c);
  return nvml::kSuccess;
}
nvml::nvmlReturn_t NvLinkState(nvml::nvmlDevice_t d, unsigned link, nvml::nvmlEnableState_t* active) {
  FAKE_LOCK();
  if (NvmlIndex(d) < 0) return nvml::kErrorInvalidArgument;
  const FakeGpu& g = g_machine.gpus[NvmlIndex(d)];
  if (link >= nvml::kNvLinkMaxLinks) return nvml::kErrorInvalidArgument;
  if (link >= g.nvlink_remote.size()) return nvml::kErrorNotSupported;
  *active = nvml::kFeatureEnabled;
  return nvml::kSuccess;
}
nvml::nvmlReturn_t NvLinkRemotePci(nvml::nvmlDevice_t d, unsigned link, nvml::nvmlPciInfo_t* pci) {
  FAKE_LOCK();
  const FakeGpu& g = g_machine.gpus.at(NvmlIndex(d));
  if (link >= g.nvlink_remote.size()) return nvml::kErrorNotSupported;
  const int far = g.nvlink_remote[link];
  // An NVSwitch has a PCI address of its own, which is no GPU's.
  std::string bus = far >= 0 ? g_machine.gpus[far].bus_id : "0000:c1:00.0";
  std::snprintf(pci->busId, sizeof pci->busId, "0000%s", bus.c_str());
  return nvml::kSuccess;
}
nvml::nvmlReturn_t NvLinkRemoteType(nvml::nvmlDevice_t d, unsigned link, nvml::nvmlIntNvLinkDeviceType_t* type) {
  FAKE_LOCK();
  const FakeGpu& g = g_machine.gpus.at(NvmlIndex(d));
  if (link >= g.nvlink_remote.size()) return nvml::kErrorNotSupported;
  *type = g.nvlink_remote[link] >= 0 ? nvml::kNvLinkDeviceTypeGpu : nvml::kNvLinkDeviceTypeSwitch;
  return nvml::kSuccess;
}
bool HasSwitchLink(const FakeGpu& g) {
  return std::find(g.nvlink_remote.begin(), g.nvlink_remote.end(), -1) != g.nvlink_remote.end();
}
nvml::nvmlReturn_t P2PStatus(nvml::nvmlDevice_t a, nvml::nvmlDevice_t b, nvml::nvmlGpuP2PCapsIndex_t index,
                             nvml::nvmlGpuP2PStatus_t* status) {
  FAKE_LOCK();
  if (NvmlIndex(a) < 0 || NvmlIndex(b) < 0) return nvml::kErrorInvalidArgument;
  if (index != nvml::kP2PCapsIndexNvLink) return nvml::kErrorNotSupported;
  const FakeGpu& ga = g_machine.gpus[NvmlIndex(a)];
  const FakeGpu& gb = g_machine.gpus[NvmlIndex(b)];
  bool direct = std::find(ga.nvlink_remote.begin(), ga.nvlink_remote.end(), NvmlIndex(b)) != ga.nvlink_remote.end();
  *status = direct || (HasSwitchLink(ga) && HasSwitchLink(gb)) ? nvml::kP2PStatusOk : 5 /* NVML_P2P_STATUS_NOT_SUPPORTED */;
  return nvml::kSuccess;
}
nvml::nvmlReturn_t Topology(nvml::nvmlDevice_t, nvml::nvmlDevice_t, nvml::nvmlGpuTopologyLevel_t* level) {
  FAKE_LOCK();
  *level = nvml::kTopologyHostBridge;
  return nvml::kSuccess;
}

}  // namespace

nvml::NvmlApi FakeNvmlApi() {
  nvml::NvmlApi a;
  a.nvmlInit = NvmlOk;
  a.nvmlShutdown = NvmlOk;
  a.nvmlDeviceGetCount = NvmlCount;
  a.nvmlDeviceGetHandleByIndex = NvmlByIndex;
  a.nvmlDeviceGetHandleByPciBusId = NvmlByBusId;
  a.nvmlDeviceGetCurrPcieLinkGeneration = CurrGen;
  a.nvmlDeviceGetCurrPcieLinkWidth = CurrWidth;
  a.nvmlDeviceGetMaxPcieLinkGeneration = MaxGen;
  a.nvmlDeviceGetMaxPcieLinkWidth = MaxWidth;
  a.nvmlDeviceGetTemperature = Temperature;
  if (g_machine.nvml_has_temperature_v) a.nvmlDeviceGetTemperatureV = TemperatureV;
  a.nvmlDeviceGetTopologyCommonAncestor = Topology;
  a.nvmlDeviceGetNvLinkState = NvLinkState;
  a.nvmlDeviceGetNvLinkRemotePciInfo = NvLinkRemotePci;
  if (g_machine.nvml_has_remote_device_type) a.nvmlDeviceGetNvLinkRemoteDeviceType = NvLinkRemoteType;
  if (g_machine.nvml_has_p2p_status) a.nvmlDeviceGetP2PStatus = P2PStatus;
  return a;
}

}  // namespace labcheck::gpu::fake

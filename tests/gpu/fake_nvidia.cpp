#include "fake_nvidia.h"

#include <strings.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>

namespace labcheck::gpu::fake {

namespace {

using namespace cuda;

struct FakeContext {
  int device = 0;
};
struct FakeStream {
  int device = 0;
  double clock_ms = 0;
};
struct FakeEvent {
  double at_ms = -1;
};

// What the fake machine owns besides FakeMachine's public state; reset with it.
struct Internals {
  std::deque<FakeContext> contexts;        // one primary context per GPU
  std::deque<FakeStream> default_streams;  // the legacy NULL stream per GPU
  std::deque<FakeStream> streams;
  std::deque<FakeEvent> events;
  int query_countdown = 0;
};

FakeMachine g_machine;
Internals g_state;
// The jobs' "all GPUs at once" threads call in concurrently; each thread has its own current
// context, as with the real driver.
std::recursive_mutex g_mutex;
thread_local int t_current = -1;
#define FAKE_LOCK() std::lock_guard<std::recursive_mutex> fake_lock(g_mutex)

void Log(const char* call) { g_machine.calls.emplace_back(call); }

FakeStream* StreamOf(CUstream stream) {
  if (stream == nullptr) return &g_state.default_streams.at(std::max(t_current, 0));
  return reinterpret_cast<FakeStream*>(stream);
}

void Advance(FakeStream* stream, double ms) {
  stream->clock_ms += ms + g_machine.gpus.at(stream->device).latency_ms;
  g_machine.busy = true;
  g_state.query_countdown = g_machine.stream_query_not_ready;
}

double Ms(size_t bytes, double gbps) { return gbps > 0 ? bytes / (gbps * 1e9) * 1e3 : 0; }

bool IsPinned(const void* host) {
  for (const void* p : g_machine.pinned)
    if (p == host) return true;
  return false;
}

void* HostPointer(CUdeviceptr pointer) { return reinterpret_cast<void*>(static_cast<uintptr_t>(pointer)); }

// --- CUDA driver ----------------------------------------------------------------------------

CUresult Init(unsigned) {
  FAKE_LOCK();
  Log("cuInit"); return kSuccess;
}
CUresult DriverGetVersion(int* v) {
  FAKE_LOCK();
  *v = 13000; return kSuccess;
}
CUresult DeviceGetCount(int* n) {
  FAKE_LOCK();
  *n = static_cast<int>(g_machine.gpus.size()); return kSuccess;
}
CUresult DeviceGet(CUdevice* d, int ordinal) {
  FAKE_LOCK();
  Log("cuDeviceGet");
  if (ordinal < 0 || ordinal >= static_cast<int>(g_machine.gpus.size())) return kErrorInvalidDevice;
  *d = FakeMachine::kHandleBase + ordinal;
  return kSuccess;
}
int Ordinal(CUdevice d) {
  int i = d - FakeMachine::kHandleBase;
  return i >= 0 && i < static_cast<int>(g_machine.gpus.size()) ? i : -1;
}
CUresult DeviceGetName(char* name, int length, CUdevice d) {
  FAKE_LOCK();
  if (Ordinal(d) < 0) return kErrorInvalidDevice;
  std::snprintf(name, length, "%s", g_machine.gpus[Ordinal(d)].name.c_str());
  return kSuccess;
}
CUresult DeviceTotalMem(size_t* bytes, CUdevice d) {
  FAKE_LOCK();
  if (Ordinal(d) < 0) return kErrorInvalidDevice;
  *bytes = g_machine.gpus[Ordinal(d)].total_bytes;
  return kSuccess;
}
CUresult DeviceGetAttribute(int* value, int attribute, CUdevice d) {
  FAKE_LOCK();
  if (Ordinal(d) < 0) return kErrorInvalidDevice;
  const FakeGpu& g = g_machine.gpus[Ordinal(d)];
  switch (attribute) {
    case kAttrComputeCapabilityMajor: *value = g.cc / 10; break;
    case kAttrComputeCapabilityMinor: *value = g.cc % 10; break;
    case kAttrMultiprocessorCount: *value = 80; break;
    default: *value = 0;
  }
  return kSuccess;
}
CUresult DeviceGetPCIBusId(char* bus_id, int length, CUdevice d) {
  FAKE_LOCK();
  if (Ordinal(d) < 0) return kErrorInvalidDevice;
  std::snprintf(bus_id, length, "%s", g_machine.gpus[Ordinal(d)].bus_id.c_str());
  return kSuccess;
}
CUresult DeviceCanAccessPeer(int* can, CUdevice d, CUdevice peer) {
  FAKE_LOCK();
  Log("cuDeviceCanAccessPeer");
  if (g_machine.fail_can_access_peer) return kErrorNotInitialized;
  if (Ordinal(d) < 0 || Ordinal(peer) < 0) return kErrorInvalidDevice;
  *can = !g_machine.peer.empty() && g_machine.peer[Ordinal(d)][Ordinal(peer)] ? 1 : 0;
  return kSuccess;
}
CUresult PrimaryCtxRetain(CUcontext* context, CUdevice d) {
  FAKE_LOCK();
  Log("cuDevicePrimaryCtxRetain");
  if (Ordinal(d) < 0) return kErrorInvalidDevice;
  ++g_machine.retained;
  *context = reinterpret_cast<CUcontext>(&g_state.contexts.at(Ordinal(d)));
  return kSuccess;
}
CUresult PrimaryCtxRelease(CUdevice d) {
  FAKE_LOCK();
  Log("cuDevicePrimaryCtxRelease");
  if (Ordinal(d) < 0) return kErrorInvalidDevice;
  ++g_machine.released;
  return kSuccess;
}
CUresult CtxSetCurrent(CUcontext context) {
  FAKE_LOCK();
  t_current = context == nullptr ? -1 : reinterpret_cast<FakeContext*>(context)->device;
  return kSuccess;
}
CUresult CtxSynchronize() {
  FAKE_LOCK();
  Log("cuCtxSynchronize");
  g_machine.busy = false;
  return kSuccess;
}
CUresult CtxEnablePeerAccess(CUcontext, unsigned) {
  FAKE_LOCK();
  Log("cuCtxEnablePeerAccess"); return kSuccess;
}
CUresult CtxDisablePeerAccess(CUcontext) {
  FAKE_LOCK();
  Log("cuCtxDisablePeerAccess"); return kSuccess;
}
CUresult MemGetInfo(size_t* free_bytes, size_t* total) {
  FAKE_LOCK();
  Log("cuMemGetInfo");
  if (t_current < 0) return kErrorInvalidValue;
  const FakeGpu& g = g_machine.gpus[t_current];
  size_t used = 0;
  for (const auto& [pointer, sized] : g_machine.allocations)
    if (sized.second == t_current) used += sized.first;
  *free_bytes = g.free_bytes > used ? g.free_bytes - used : 0;
  *total = g.total_bytes;
  return kSuccess;
}
CUresult MemAlloc(CUdeviceptr* pointer, size_t bytes) {
  FAKE_LOCK();
  Log("cuMemAlloc");
  if (t_current < 0) return kErrorInvalidValue;
  size_t free_bytes = 0, total = 0;
  MemGetInfo(&free_bytes, &total);
  g_machine.calls.pop_back();  // the inner cuMemGetInfo is not the caller's
  if (bytes > free_bytes) return kErrorOutOfMemory;
  *pointer = reinterpret_cast<uintptr_t>(new char[bytes]);
  g_machine.allocations[*pointer] = {bytes, t_current};
  return kSuccess;
}
CUresult MemFree(CUdeviceptr pointer) {
  FAKE_LOCK();
  Log("cuMemFree");
  auto it = g_machine.allocations.find(pointer);
  if (it == g_machine.allocations.end()) return kErrorInvalidValue;
  delete[] static_cast<char*>(HostPointer(pointer));
  g_machine.allocations.erase(it);
  return kSuccess;
}
CUresult MemHostAlloc(void** pointer, size_t bytes, unsigned) {
  FAKE_LOCK();
  Log("cuMemHostAlloc");
  *pointer = new char[bytes];
  g_machine.pinned.insert(*pointer);
  return kSuccess;
}
CUresult MemFreeHost(void* pointer) {
  FAKE_LOCK();
  g_machine.pinned.erase(pointer);
  delete[] static_cast<char*>(pointer);
  return kSuccess;
}
double HostCopyMs(size_t bytes, const void* host, bool to_device) {
  const FakeGpu& g = g_machine.gpus[std::max(t_current, 0)];
  const bool pinned = IsPinned(host);
  return Ms(bytes, to_device ? (pinned ? g.h2d_pinned_gbps : g.h2d_pageable_gbps)
                             : (pinned ? g.d2h_pinned_gbps : g.d2h_pageable_gbps));
}
CUresult MemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  FAKE_LOCK();
  Log("cuMemcpyHtoD");
  std::memcpy(HostPointer(dst), src, bytes);
  Advance(StreamOf(nullptr), HostCopyMs(bytes, src, true));
  return kSuccess;
}
CUresult MemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  FAKE_LOCK();
  Log("cuMemcpyDtoH");
  std::memcpy(dst, HostPointer(src), bytes);
  Advance(StreamOf(nullptr), HostCopyMs(bytes, dst, false));
  g_machine.busy = false;  // synchronous towards the host
  return kSuccess;
}
CUresult MemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
  FAKE_LOCK();
  Log("cuMemcpyHtoDAsync");
  std::memcpy(HostPointer(dst), src, bytes);
  Advance(StreamOf(stream), HostCopyMs(bytes, src, true));
  return kSuccess;
}
CUresult MemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  FAKE_LOCK();
  Log("cuMemcpyDtoHAsync");
  std::memcpy(dst, HostPointer(src), bytes);
  Advance(StreamOf(stream), HostCopyMs(bytes, dst, false));
  return kSuccess;
}
CUresult MemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  FAKE_LOCK();
  Log("cuMemcpyDtoDAsync");
  std::memcpy(HostPointer(dst), HostPointer(src), bytes);
  FakeStream* s = StreamOf(stream);
  Advance(s, Ms(2 * bytes, g_machine.gpus[s->device].device_copy_gbps));
  return kSuccess;
}
CUresult MemcpyPeerAsync(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext, size_t bytes, CUstream stream) {
  FAKE_LOCK();
  Log("cuMemcpyPeerAsync");
  std::memcpy(HostPointer(dst), HostPointer(src), bytes);
  FakeStream* s = StreamOf(stream);
  Advance(s, Ms(bytes, g_machine.gpus[s->device].peer_gbps));
  return kSuccess;
}
CUresult MemsetD32(CUdeviceptr dst, unsigned value, size_t count) {
  FAKE_LOCK();
  Log("cuMemsetD32");
  auto* words = static_cast<unsigned*>(HostPointer(dst));
  std::fill(words, words + count, value);
  Advance(StreamOf(nullptr), 0);
  return kSuccess;
}
CUresult StreamCreate(CUstream* stream, unsigned) {
  FAKE_LOCK();
  Log("cuStreamCreate");
  g_state.streams.push_back({std::max(t_current, 0), 0});
  *stream = reinterpret_cast<CUstream>(&g_state.streams.back());
  return kSuccess;
}
CUresult StreamDestroy(CUstream) {
  FAKE_LOCK();
  return kSuccess;
}
CUresult StreamSynchronize(CUstream) {
  FAKE_LOCK();
  Log("cuStreamSynchronize");
  g_machine.busy = false;
  return kSuccess;
}
CUresult StreamQuery(CUstream) {
  FAKE_LOCK();
  if (g_state.query_countdown > 0) {
    --g_state.query_countdown;
    return kErrorNotReady;
  }
  return kSuccess;
}
CUresult EventCreate(CUevent* event, unsigned) {
  FAKE_LOCK();
  g_state.events.emplace_back();
  *event = reinterpret_cast<CUevent>(&g_state.events.back());
  return kSuccess;
}
CUresult EventDestroy(CUevent) {
  FAKE_LOCK();
  return kSuccess;
}
CUresult EventRecord(CUevent event, CUstream stream) {
  FAKE_LOCK();
  Log("cuEventRecord");
  reinterpret_cast<FakeEvent*>(event)->at_ms = StreamOf(stream)->clock_ms;
  return kSuccess;
}
CUresult EventSynchronize(CUevent) {
  FAKE_LOCK();
  Log("cuEventSynchronize");
  g_machine.busy = false;
  return kSuccess;
}
CUresult EventElapsedTime(float* ms, CUevent start, CUevent end) {
  FAKE_LOCK();
  const FakeEvent* a = reinterpret_cast<FakeEvent*>(start);
  const FakeEvent* b = reinterpret_cast<FakeEvent*>(end);
  if (a->at_ms < 0 || b->at_ms < 0) return kErrorInvalidValue;
  *ms = static_cast<float>(b->at_ms - a->at_ms);
  return kSuccess;
}

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

// --- cuBLASLt -------------------------------------------------------------------------------

using namespace cublaslt;
int g_opaque = 0;
cublasStatus_t LtCreate(cublasLtHandle_t* h) {
  FAKE_LOCK();
  *h = reinterpret_cast<cublasLtHandle_t>(&g_opaque); return kStatusSuccess;
}
cublasStatus_t LtDestroy(cublasLtHandle_t) {
  FAKE_LOCK();
  return kStatusSuccess;
}
size_t LtVersion() { return 130100; }
size_t LtCudart() { return 13000; }
cublasStatus_t DescCreate(cublasLtMatmulDesc_t* d, cublasComputeType_t, cudaDataType_t) {
  FAKE_LOCK();
  *d = &g_opaque; return kStatusSuccess;
}
cublasStatus_t DescDestroy(cublasLtMatmulDesc_t) {
  FAKE_LOCK();
  return kStatusSuccess;
}
cublasStatus_t DescSet(cublasLtMatmulDesc_t, int, const void*, size_t) {
  FAKE_LOCK();
  Log("cublasLtMatmulDescSetAttribute");
  return g_machine.fail_desc_set_attribute;
}
cublasStatus_t LayoutCreate(cublasLtMatrixLayout_t* l, cudaDataType_t, uint64_t, uint64_t, int64_t) {
  FAKE_LOCK();
  *l = &g_opaque; return kStatusSuccess;
}
cublasStatus_t LayoutDestroy(cublasLtMatrixLayout_t) {
  FAKE_LOCK();
  return kStatusSuccess;
}
cublasStatus_t PrefCreate(cublasLtMatmulPreference_t* p) {
  FAKE_LOCK();
  *p = &g_opaque; return kStatusSuccess;
}
cublasStatus_t PrefDestroy(cublasLtMatmulPreference_t) {
  FAKE_LOCK();
  return kStatusSuccess;
}
cublasStatus_t PrefSet(cublasLtMatmulPreference_t, int, const void*, size_t) {
  FAKE_LOCK();
  Log("cublasLtMatmulPreferenceSetAttribute");
  return kStatusSuccess;
}
cublasStatus_t Heuristic(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                         cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int requested,
                         cublasLtMatmulHeuristicResult_t* results, int* returned) {
  FAKE_LOCK();
  *returned = std::min(requested, 1);
  results[0] = {};
  return kStatusSuccess;
}
cublasStatus_t Matmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*, cublasLtMatrixLayout_t,
                      const void*, cublasLtMatrixLayout_t, const void*, const void*, cublasLtMatrixLayout_t, void*,
                      cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t*, void*, size_t, CUstream stream) {
  FAKE_LOCK();
  Log("cublasLtMatmul");
  Advance(StreamOf(stream), 1.0);  // the product itself is not computed: a fixed 1 ms per call
  return kStatusSuccess;
}

// --- NCCL -----------------------------------------------------------------------------------

struct FakeComm {
  int rank = 0, count = 0, device = 0;
};
std::deque<FakeComm> g_comms;
struct PendingReduce {
  const float* send;
  float* receive;
  size_t count;
  FakeComm* comm;
  CUstream stream;
};
std::vector<PendingReduce> g_pending;
int g_group_depth = 0;

void FlushReduces() {
  if (g_pending.empty()) return;
  const size_t count = g_pending.front().count;
  std::vector<float> sum(count, 0.0f);
  for (const PendingReduce& p : g_pending)
    for (size_t i = 0; i < count; ++i) sum[i] += p.send[i];
  const int n = static_cast<int>(g_pending.size());
  const double ms = n > 1 ? Ms(static_cast<size_t>(count * sizeof(float) * 2.0 * (n - 1) / n), g_machine.allreduce_busbw_gbps) : 0.001;
  for (const PendingReduce& p : g_pending) {
    std::memcpy(p.receive, sum.data(), count * sizeof(float));
    Advance(StreamOf(p.stream), ms);
  }
  g_pending.clear();
}

nccl::ncclResult_t NcclVersion(int* v) {
  FAKE_LOCK();
  *v = 22809; return nccl::kSuccess;
}
const char* NcclError(nccl::ncclResult_t) { return "fake error"; }
nccl::ncclResult_t CommInitAll(nccl::ncclComm_t* comms, int count, const int* devices) {
  FAKE_LOCK();
  Log("ncclCommInitAll");
  for (int i = 0; i < count; ++i) {
    g_comms.push_back({i, count, devices[i]});
    comms[i] = reinterpret_cast<nccl::ncclComm_t>(&g_comms.back());
  }
  return nccl::kSuccess;
}
nccl::ncclResult_t CommDone(nccl::ncclComm_t) {
  FAKE_LOCK();
  return nccl::kSuccess;
}
nccl::ncclResult_t AsyncError(nccl::ncclComm_t, nccl::ncclResult_t* e) {
  FAKE_LOCK();
  *e = nccl::kSuccess; return nccl::kSuccess;
}
nccl::ncclResult_t AllReduce(const void* send, void* receive, size_t count, nccl::ncclDataType_t, nccl::ncclRedOp_t,
                             nccl::ncclComm_t comm, CUstream stream) {
  FAKE_LOCK();
  Log("ncclAllReduce");
  g_pending.push_back({static_cast<const float*>(send), static_cast<float*>(receive), count,
                       reinterpret_cast<FakeComm*>(comm), stream});
  if (g_group_depth == 0) FlushReduces();
  return nccl::kSuccess;
}
nccl::ncclResult_t GroupStart() {
  FAKE_LOCK();
  ++g_group_depth; return nccl::kSuccess;
}
nccl::ncclResult_t GroupEnd() {
  FAKE_LOCK();
  if (--g_group_depth == 0) FlushReduces();
  return nccl::kSuccess;
}

}  // namespace

FakeMachine& FakeMachine::Get() { return g_machine; }

FakeMachine& FakeMachine::Reset(int gpu_count) {
  for (auto& [pointer, sized] : g_machine.allocations) delete[] static_cast<char*>(HostPointer(pointer));
  for (const void* p : g_machine.pinned) delete[] static_cast<const char*>(p);
  g_machine = FakeMachine();
  g_state = Internals();
  g_comms.clear();
  g_pending.clear();
  g_group_depth = 0;
  for (int i = 0; i < gpu_count; ++i) {
    FakeGpu gpu;
    char bus[16];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x17 + 0x10 * i);
    gpu.bus_id = bus;
    g_machine.gpus.push_back(gpu);
    g_state.contexts.push_back({i});
    g_state.default_streams.push_back({i, 0});
  }
  return g_machine;
}

int FakeMachine::Count(const std::string& call) const {
  return static_cast<int>(std::count(calls.begin(), calls.end(), call));
}
int FakeMachine::First(const std::string& call) const {
  auto it = std::find(calls.begin(), calls.end(), call);
  return it == calls.end() ? -1 : static_cast<int>(it - calls.begin());
}
int FakeMachine::Last(const std::string& call) const {
  auto it = std::find(calls.rbegin(), calls.rend(), call);
  return it == calls.rend() ? -1 : static_cast<int>(calls.size() - 1 - (it - calls.rbegin()));
}

nvml::nvmlDevice_t FakeNvmlDevice(int index) {
  return reinterpret_cast<nvml::nvmlDevice_t>(static_cast<uintptr_t>(index + 1));
}

cuda::CudaDriverApi FakeCudaApi() {
  cuda::CudaDriverApi a;
  a.cuInit = Init;
  a.cuDriverGetVersion = DriverGetVersion;
  a.cuDeviceGetCount = DeviceGetCount;
  a.cuDeviceGet = DeviceGet;
  a.cuDeviceGetName = DeviceGetName;
  a.cuDeviceTotalMem = DeviceTotalMem;
  a.cuDeviceGetAttribute = DeviceGetAttribute;
  a.cuDeviceGetPCIBusId = DeviceGetPCIBusId;
  a.cuDeviceCanAccessPeer = DeviceCanAccessPeer;
  a.cuDevicePrimaryCtxRetain = PrimaryCtxRetain;
  a.cuDevicePrimaryCtxRelease = PrimaryCtxRelease;
  a.cuCtxSetCurrent = CtxSetCurrent;
  a.cuCtxSynchronize = CtxSynchronize;
  a.cuCtxEnablePeerAccess = CtxEnablePeerAccess;
  a.cuCtxDisablePeerAccess = CtxDisablePeerAccess;
  a.cuMemGetInfo = MemGetInfo;
  a.cuMemAlloc = MemAlloc;
  a.cuMemFree = MemFree;
  a.cuMemHostAlloc = MemHostAlloc;
  a.cuMemFreeHost = MemFreeHost;
  a.cuMemcpyHtoD = MemcpyHtoD;
  a.cuMemcpyDtoH = MemcpyDtoH;
  a.cuMemcpyHtoDAsync = MemcpyHtoDAsync;
  a.cuMemcpyDtoHAsync = MemcpyDtoHAsync;
  a.cuMemcpyDtoDAsync = MemcpyDtoDAsync;
  a.cuMemcpyPeerAsync = MemcpyPeerAsync;
  a.cuMemsetD32 = MemsetD32;
  a.cuStreamCreate = StreamCreate;
  a.cuStreamDestroy = StreamDestroy;
  a.cuStreamSynchronize = StreamSynchronize;
  a.cuStreamQuery = StreamQuery;
  a.cuEventCreate = EventCreate;
  a.cuEventDestroy = EventDestroy;
  a.cuEventRecord = EventRecord;
  a.cuEventSynchronize = EventSynchronize;
  a.cuEventElapsedTime = EventElapsedTime;
  return a;
}

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

cublaslt::CublasLtApi FakeCublasLtApi() {
  cublaslt::CublasLtApi a;
  a.cublasLtCreate = LtCreate;
  a.cublasLtDestroy = LtDestroy;
  a.cublasLtGetVersion = LtVersion;
  a.cublasLtGetCudartVersion = LtCudart;
  a.cublasLtMatmulDescCreate = DescCreate;
  a.cublasLtMatmulDescDestroy = DescDestroy;
  a.cublasLtMatmulDescSetAttribute = DescSet;
  a.cublasLtMatrixLayoutCreate = LayoutCreate;
  a.cublasLtMatrixLayoutDestroy = LayoutDestroy;
  a.cublasLtMatmulPreferenceCreate = PrefCreate;
  a.cublasLtMatmulPreferenceDestroy = PrefDestroy;
  a.cublasLtMatmulPreferenceSetAttribute = PrefSet;
  a.cublasLtMatmulAlgoGetHeuristic = Heuristic;
  a.cublasLtMatmul = Matmul;
  return a;
}

nccl::NcclApi FakeNcclApi() {
  nccl::NcclApi a;
  a.ncclGetVersion = NcclVersion;
  a.ncclGetErrorString = NcclError;
  a.ncclCommInitAll = CommInitAll;
  a.ncclCommDestroy = CommDone;
  a.ncclCommAbort = CommDone;
  a.ncclCommGetAsyncError = AsyncError;
  a.ncclAllReduce = AllReduce;
  a.ncclGroupStart = GroupStart;
  a.ncclGroupEnd = GroupEnd;
  return a;
}

}  // namespace labcheck::gpu::fake

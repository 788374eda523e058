// The fake CUDA driver: devices, primary contexts, memory (host memory: copies really copy), streams and
// events on each stream's modelled clock.
#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "fake_internal.h"

namespace labcheck::gpu::fake {

namespace {

using namespace internal;
using namespace cuda;

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

}  // namespace

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

}  // namespace labcheck::gpu::fake

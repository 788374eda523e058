// libcuda.so.1 sim: device and pinned host memory, memset and copies. Each copy moves the bytes
// for real (device-to-device ones are recorded and done when read, async ones from or to pinned
// memory when the program could first tell, core/device_memory.h) and takes bytes / the
// profile's bandwidth of modelled time on its stream.

#include <cstring>
#include <map>
#include <mutex>

#include "core/device_memory.h"
#include "core/host_pages.h"
#include "core/interconnect.h"
#include "core/numa.h"
#include "core/physical_memory.h"
#include "cuda/cuda_internal.h"

using namespace cusim;

namespace {

std::mutex& PinnedLock() {
  static std::mutex mutex;
  return mutex;
}

std::map<uintptr_t, size_t>& Pinned() {
  static auto* pinned = new std::map<uintptr_t, size_t>();
  return *pinned;
}

// The NUMA node each pinned buffer was made on (core/numa.h): the allocating thread's.
std::map<uintptr_t, int>& PinnedNode() {
  static auto* nodes = new std::map<uintptr_t, int>();
  return *nodes;
}

// The node of the pinned buffer holding `host` (caller knows it is pinned).
int NodeOf(const void* host) {
  const auto address = reinterpret_cast<uintptr_t>(host);
  std::lock_guard<std::mutex> lock(PinnedLock());
  auto it = PinnedNode().upper_bound(address);
  return it == PinnedNode().begin() ? 0 : std::prev(it)->second;
}

bool IsPinned(const void* host, size_t bytes) {
  const auto address = reinterpret_cast<uintptr_t>(host);
  std::lock_guard<std::mutex> lock(PinnedLock());
  auto it = Pinned().upper_bound(address);
  if (it == Pinned().begin()) return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second;
}

double Latency(const nvsim::Gpu& g) { return g.Number("perf/latency_us") * 1e-6; }

// Modelled seconds for `bytes` at `gbps` (decimal GB/s, as our reports count) on GPU `g`.
double Seconds(const nvsim::Gpu& g, double bytes, double gbps) {
  return Latency(g) + bytes / (gbps * 1e9) * nvsim::Noise();
}

const nvsim::Gpu& GpuAt(int index) { return nvsim::Profile().gpus[index]; }

nvsim::Context* Current() { return Initialised() ? nvsim::CurrentContext() : nullptr; }

CUresult Place(CUdeviceptr pointer, size_t bytes, nvsim::DevicePlace* place) {
  *place = nvsim::Find(static_cast<uintptr_t>(pointer), bytes);
  return place->allocation ? kSuccess : kInvalidValue;
}

// Host ↔ device on `stream`; `sync` waits for it as the synchronous cuMemcpy does.
CUresult HostCopy(bool to_device, CUdeviceptr device_pointer, void* host, size_t bytes, nvsim::Stream* stream, bool sync) {
  if (!Initialised()) return kNotInitialized;
  if (stream == nullptr) return kInvalidContext;
  if (CUresult lost = Sticky(stream->device); lost != kSuccess) return lost;
  nvsim::DevicePlace place;
  if (Place(device_pointer, bytes, &place) != kSuccess || host == nullptr) return kInvalidValue;
  const bool pinned = IsPinned(host, bytes);
  nvsim::OrderAfterLegacy(*stream);
  // The synchronous copy from pageable memory: "a stream sync is performed before the copy is
  // initiated", then it returns "once the pageable buffer has been copied to the staging memory
  // for DMA transfer to device memory, but the DMA to final destination may not have completed"
  // (CUDA Driver API, "API synchronization behavior"). The bytes land with the legacy stream.
  const bool lands_late = to_device && sync && !pinned;
  if (lands_late) nvsim::Wait(*stream);
  const auto started = nvsim::RealClock::now();
  {
    const nvsim::CallInProgress dma(place.allocation->device);
    // An async copy from or to pinned memory is DMA after the call: its bytes move when the
    // program could first tell (core/device_memory.h, QueueDmaToDevice).
    const bool queued = pinned && !sync;
    if (lands_late) nvsim::WriteAfterLegacyDma(place, host, bytes, stream->device);
    else if (queued && to_device) nvsim::QueueDmaToDevice(place, host, bytes);
    else if (queued) nvsim::QueueDmaToHost(place, host, bytes);
    else if (to_device) nvsim::WriteFromHost(place, host, bytes);
    else nvsim::ReadBytes(place, host, bytes);
  }
  const nvsim::Gpu& g = GpuAt(place.allocation->device);
  const char* key = to_device ? (pinned ? "perf/h2d_pinned_gbps" : "perf/h2d_pageable_gbps")
                              : (pinned ? "perf/d2h_pinned_gbps" : "perf/d2h_pageable_gbps");
  // A pinned buffer on another socket's memory crosses the link between the sockets.
  const double gbps = g.Number(key) * (pinned ? nvsim::NumaFactor(g, NodeOf(host)) : 1.0);
  nvsim::Enqueue(*stream, Seconds(g, static_cast<double>(bytes), gbps), nvsim::Work::Copy, started);
  if (lands_late) return kSuccess;
  // Pageable memory is staged through a pinned buffer, so even the Async call returns only
  // when the copy is done (CUDA Driver API, "API synchronization behavior").
  if (sync || !pinned) nvsim::Wait(*stream);
  return kSuccess;
}

}  // namespace

NVSIM_EXPORT(CUresult, cuMemGetInfo_v2, (size_t * free_bytes, size_t* total_bytes)) {
  nvsim::Context* c = Current();
  if (c == nullptr) return Initialised() ? kInvalidContext : kNotInitialized;
  if (free_bytes == nullptr || total_bytes == nullptr) return kInvalidValue;
  *free_bytes = nvsim::FreeBytes(c->device);
  *total_bytes = GpuAt(c->device).memory_bytes;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuMemAlloc_v2, (CUdeviceptr * pointer, size_t bytes)) {
  nvsim::Context* c = Current();
  if (c == nullptr) return Initialised() ? kInvalidContext : kNotInitialized;
  if (pointer == nullptr || bytes == 0) return kInvalidValue;
  if (CUresult lost = Sticky(c->device); lost != kSuccess) return lost;
  if (!nvsim::Reserve(c->device, bytes)) return kOutOfMemory;
  nvsim::AllocationRef a = nvsim::MapMemory(c->device, bytes);
  if (!a) {
    nvsim::Release(c->device, bytes);
    return kOutOfMemory;
  }
  nvsim::PlacePhysical(a);
  nvsim::Register(a);
  *pointer = a->base;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuMemFree_v2, (CUdeviceptr pointer)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::LandQueuedDma();
  nvsim::DevicePlace place = nvsim::Find(static_cast<uintptr_t>(pointer), 0);
  if (!place.allocation || place.offset != 0) return kInvalidValue;
  nvsim::Release(place.allocation->device, place.allocation->size);
  nvsim::ForgetPhysical(*place.allocation);
  nvsim::Unregister(place.allocation->base);
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuMemHostAlloc, (void** pointer, size_t bytes, unsigned flags)) {
  (void)flags;
  if (!Initialised()) return kNotInitialized;
  if (pointer == nullptr || bytes == 0) return kInvalidValue;
  void* p = nvsim::MapHostPages(bytes);
  if (p == nullptr) return kOutOfMemory;
  std::lock_guard<std::mutex> lock(PinnedLock());
  Pinned()[reinterpret_cast<uintptr_t>(p)] = bytes;
  PinnedNode()[reinterpret_cast<uintptr_t>(p)] = nvsim::ThreadNumaNode();  // it touches the pages here
  *pointer = p;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuMemFreeHost, (void* pointer)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::LandQueuedDma();  // before the pages go: a queued copy still reads or writes them
  std::lock_guard<std::mutex> lock(PinnedLock());
  auto it = Pinned().find(reinterpret_cast<uintptr_t>(pointer));
  if (it == Pinned().end()) return kInvalidValue;
  nvsim::UnmapHostPages(pointer, it->second);
  Pinned().erase(it);
  PinnedNode().erase(reinterpret_cast<uintptr_t>(pointer));
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuMemcpyHtoD_v2, (CUdeviceptr dst, const void* src, size_t bytes)) {
  nvsim::Context* c = Current();
  if (c == nullptr) return Initialised() ? kInvalidContext : kNotInitialized;
  return HostCopy(true, dst, const_cast<void*>(src), bytes, &nvsim::DefaultStream(c->device), true);
}

NVSIM_EXPORT(CUresult, cuMemcpyDtoH_v2, (void* dst, CUdeviceptr src, size_t bytes)) {
  nvsim::Context* c = Current();
  if (c == nullptr) return Initialised() ? kInvalidContext : kNotInitialized;
  return HostCopy(false, src, dst, bytes, &nvsim::DefaultStream(c->device), true);
}

NVSIM_EXPORT(CUresult, cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void* src, size_t bytes, CUstream stream)) {
  return HostCopy(true, dst, const_cast<void*>(src), bytes, nvsim::StreamFor(stream), false);
}

NVSIM_EXPORT(CUresult, cuMemcpyDtoHAsync_v2, (void* dst, CUdeviceptr src, size_t bytes, CUstream stream)) {
  return HostCopy(false, src, dst, bytes, nvsim::StreamFor(stream), false);
}

NVSIM_EXPORT(CUresult, cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Stream* s = nvsim::StreamFor(stream);
  if (s == nullptr) return kInvalidContext;
  if (CUresult lost = Sticky(s->device); lost != kSuccess) return lost;
  nvsim::DevicePlace to, from;
  if (Place(dst, bytes, &to) != kSuccess || Place(src, bytes, &from) != kSuccess) return kInvalidValue;
  const auto started = nvsim::RealClock::now();
  nvsim::WriteLazy(to, bytes, nvsim::CopyOf(from));
  const nvsim::Gpu& g = GpuAt(to.allocation->device);
  // The profile's figure counts bytes read + bytes written, as our report does.
  nvsim::Enqueue(*s, Seconds(g, 2.0 * static_cast<double>(bytes), g.Number("perf/device_copy_gbps")),
                 nvsim::Work::Copy, started);
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src,
                                           CUcontext src_context, size_t bytes, CUstream stream)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Stream* s = nvsim::StreamFor(stream);
  if (s == nullptr || dst_context == nullptr || src_context == nullptr) return kInvalidContext;
  nvsim::DevicePlace to, from;
  if (Place(dst, bytes, &to) != kSuccess || Place(src, bytes, &from) != kSuccess) return kInvalidValue;
  const auto started = nvsim::RealClock::now();
  const int a = src_context->device, b = dst_context->device;
  // Direct when peer access is on between the two contexts; otherwise the driver stages the
  // copy through host memory.
  const bool direct = src_context->peer_access[b] || dst_context->peer_access[a];
  if (nvsim::PeerCopyLands(direct)) nvsim::WriteLazy(to, bytes, nvsim::CopyOf(from));
  nvsim::Enqueue(*s, Seconds(GpuAt(a), static_cast<double>(bytes), nvsim::PeerCopyGbps(a, b, direct)), nvsim::Work::Copy,
                 started);
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuMemsetD32_v2, (CUdeviceptr dst, unsigned value, size_t count)) {
  nvsim::Context* c = Current();
  if (c == nullptr) return Initialised() ? kInvalidContext : kNotInitialized;
  if (CUresult lost = Sticky(c->device); lost != kSuccess) return lost;
  nvsim::DevicePlace to;
  if (Place(dst, count * 4, &to) != kSuccess) return kInvalidValue;
  const auto started = nvsim::RealClock::now();
  nvsim::WriteLazy(to, count * 4, nvsim::Fill32(value));
  const nvsim::Gpu& g = GpuAt(to.allocation->device);
  nvsim::Stream& s = nvsim::DefaultStream(c->device);
  nvsim::Enqueue(s, Seconds(g, 4.0 * static_cast<double>(count), g.Number("perf/device_copy_gbps")), nvsim::Work::Copy,
                 started);
  // Asynchronous with respect to the host for device memory (CUDA Driver API, "API
  // synchronization behavior"), like the real call.
  return kSuccess;
}

// libcuda.so.1 sim: primary contexts, peer access, streams and events.
#include <mutex>
#include <set>

#include "core/interconnect.h"
#include "cuda/cuda_internal.h"

using namespace cusim;

namespace {

std::mutex& StreamsLock() {
  static std::mutex mutex;
  return mutex;
}

std::set<nvsim::Stream*>& Streams() {
  static auto* streams = new std::set<nvsim::Stream*>();
  return *streams;
}

}  // namespace

NVSIM_EXPORT(CUresult, cuDeviceCanAccessPeer, (int* can_access, CUdevice device, CUdevice peer)) {
  if (!Initialised()) return kNotInitialized;
  const int a = DeviceIndex(device), b = DeviceIndex(peer);
  if (a < 0 || b < 0) return kInvalidDevice;
  if (can_access == nullptr) return kInvalidValue;
  *can_access = nvsim::PeerAccess(a, b) ? 1 : 0;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuDevicePrimaryCtxRetain, (CUcontext * context, CUdevice device)) {
  if (!Initialised()) return kNotInitialized;
  const int index = DeviceIndex(device);
  if (index < 0) return kInvalidDevice;
  if (context == nullptr) return kInvalidValue;
  nvsim::Context& c = nvsim::PrimaryContext(index);
  ++c.retained;
  *context = &c;
  return kSuccess;
}

namespace {

CUresult Release(CUdevice device) {
  if (!Initialised()) return kNotInitialized;
  const int index = DeviceIndex(device);
  if (index < 0) return kInvalidDevice;
  nvsim::Context& c = nvsim::PrimaryContext(index);
  if (c.retained <= 0) return kInvalidContext;
  --c.retained;
  return kSuccess;
}

}  // namespace

NVSIM_EXPORT(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice device)) { return Release(device); }
NVSIM_EXPORT(CUresult, cuDevicePrimaryCtxRelease, (CUdevice device)) { return Release(device); }

NVSIM_EXPORT(CUresult, cuCtxSetCurrent, (CUcontext context)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::SetCurrentContext(context);
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuCtxSynchronize, ()) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Context* current = nvsim::CurrentContext();
  if (current == nullptr) return kInvalidContext;
  std::vector<nvsim::Stream*> mine = {&nvsim::DefaultStream(current->device)};
  {
    std::lock_guard<std::mutex> lock(StreamsLock());
    for (nvsim::Stream* s : Streams())
      if (s->device == current->device) mine.push_back(s);
  }
  for (nvsim::Stream* s : mine) nvsim::Wait(*s);
  return Sticky(current->device);
}

NVSIM_EXPORT(CUresult, cuCtxEnablePeerAccess, (CUcontext peer, unsigned flags)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Context* current = nvsim::CurrentContext();
  if (current == nullptr) return kInvalidContext;
  if (peer == nullptr || flags != 0) return kInvalidValue;
  if (!nvsim::PeerAccess(current->device, peer->device)) return kPeerAccessUnsupported;
  if (current->peer_access[peer->device]) return kPeerAccessAlreadyEnabled;
  current->peer_access[peer->device] = true;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuCtxDisablePeerAccess, (CUcontext peer)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Context* current = nvsim::CurrentContext();
  if (current == nullptr) return kInvalidContext;
  if (peer == nullptr) return kInvalidValue;
  if (!current->peer_access[peer->device]) return kPeerAccessNotEnabled;
  current->peer_access[peer->device] = false;
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuStreamCreate, (CUstream * stream, unsigned flags)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Context* current = nvsim::CurrentContext();
  if (current == nullptr) return kInvalidContext;
  if (stream == nullptr) return kInvalidValue;
  auto* s = new nvsim::Stream();
  s->device = current->device;
  s->blocking = (flags & 0x1) == 0;  // CU_STREAM_NON_BLOCKING = 0x1 (cuda.h)
  {
    std::lock_guard<std::mutex> lock(StreamsLock());
    Streams().insert(s);
  }
  *stream = s;
  return kSuccess;
}

namespace {

CUresult DestroyStream(CUstream stream) {
  if (!Initialised()) return kNotInitialized;
  std::lock_guard<std::mutex> lock(StreamsLock());
  if (Streams().erase(stream) == 0) return kInvalidHandle;
  // CUDA lets queued work finish after cuStreamDestroy; the sim's work is already accounted for.
  delete stream;
  return kSuccess;
}

}  // namespace

NVSIM_EXPORT(CUresult, cuStreamDestroy_v2, (CUstream stream)) { return DestroyStream(stream); }
NVSIM_EXPORT(CUresult, cuStreamDestroy, (CUstream stream)) { return DestroyStream(stream); }

NVSIM_EXPORT(CUresult, cuStreamSynchronize, (CUstream stream)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Stream* s = nvsim::StreamFor(stream);
  if (s == nullptr) return kInvalidContext;
  nvsim::Wait(*s);
  return Sticky(s->device);
}

NVSIM_EXPORT(CUresult, cuStreamQuery, (CUstream stream)) {
  if (!Initialised()) return kNotInitialized;
  nvsim::Stream* s = nvsim::StreamFor(stream);
  if (s == nullptr) return kInvalidContext;
  if (CUresult lost = Sticky(s->device); lost != kSuccess) return lost;
  return nvsim::Done(*s) ? kSuccess : kNotReady;
}

NVSIM_EXPORT(CUresult, cuEventCreate, (CUevent * event, unsigned flags)) {
  (void)flags;
  if (!Initialised()) return kNotInitialized;
  if (event == nullptr) return kInvalidValue;
  *event = new nvsim::Event();
  return kSuccess;
}

namespace {

CUresult DestroyEvent(CUevent event) {
  if (!Initialised()) return kNotInitialized;
  if (event == nullptr) return kInvalidHandle;
  delete event;
  return kSuccess;
}

// cuEventElapsedTime: CUDA_ERROR_NOT_READY while either event has not completed; the
// difference of the two stamps in milliseconds (CUDA Driver API, Event Management).
CUresult Elapsed(float* ms, CUevent start, CUevent end) {
  if (!Initialised()) return kNotInitialized;
  if (ms == nullptr || start == nullptr || end == nullptr) return kInvalidHandle;
  if (!start->recorded || !end->recorded) return kInvalidHandle;
  if (CUresult lost = Sticky(start->device); lost != kSuccess) return lost;
  if (!nvsim::Done(*start) || !nvsim::Done(*end)) return kNotReady;
  *ms = static_cast<float>((end->virtual_s - start->virtual_s) * 1e3);
  return kSuccess;
}

}  // namespace

NVSIM_EXPORT(CUresult, cuEventDestroy_v2, (CUevent event)) { return DestroyEvent(event); }
NVSIM_EXPORT(CUresult, cuEventDestroy, (CUevent event)) { return DestroyEvent(event); }

NVSIM_EXPORT(CUresult, cuEventRecord, (CUevent event, CUstream stream)) {
  if (!Initialised()) return kNotInitialized;
  if (event == nullptr) return kInvalidHandle;
  nvsim::Stream* s = nvsim::StreamFor(stream);
  if (s == nullptr) return kInvalidContext;
  if (CUresult lost = Sticky(s->device); lost != kSuccess) return lost;
  nvsim::Record(*event, *s);
  return kSuccess;
}

NVSIM_EXPORT(CUresult, cuEventSynchronize, (CUevent event)) {
  if (!Initialised()) return kNotInitialized;
  if (event == nullptr) return kInvalidHandle;
  nvsim::Wait(*event);
  return Sticky(event->device);
}

NVSIM_EXPORT(CUresult, cuEventElapsedTime_v2, (float* ms, CUevent start, CUevent end)) { return Elapsed(ms, start, end); }
NVSIM_EXPORT(CUresult, cuEventElapsedTime, (float* ms, CUevent start, CUevent end)) { return Elapsed(ms, start, end); }

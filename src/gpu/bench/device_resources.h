// RAII for what the measurements allocate through the driver API: a GPU's primary context (the
// one the CUDA runtime, cuBLASLt and NCCL use too, so they all share our allocations), device
// and pinned host buffers, streams and events. Every constructor is a factory returning Result.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/status.h"
#include "gpu/nvidia/cuda_driver.h"

namespace labcheck::gpu {

// One GPU's primary context, retained for this object's life and made current on request. Keep
// one per GPU for a whole job (GpuRuntime::Context): the last release destroys the context, and
// the next retain pays its creation again.
class DeviceContext {
 public:
  static Result<std::shared_ptr<DeviceContext>> Open(const CudaDriver& driver, int ordinal);
  ~DeviceContext();
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  Status MakeCurrent() const;  // on the calling thread
  int ordinal() const { return ordinal_; }
  cuda::CUdevice device() const { return device_; }  // the cuDeviceGet handle
  cuda::CUcontext context() const { return context_; }
  const CudaDriver& driver() const { return driver_; }

 private:
  DeviceContext(const CudaDriver& driver, int ordinal) : driver_(driver), ordinal_(ordinal) {}
  const CudaDriver& driver_;
  int ordinal_;
  cuda::CUdevice device_ = 0;
  cuda::CUcontext context_ = nullptr;
};

// Waits until everything queued in the current context is done. Setup (cuMemsetD32, synchronous
// cuMemcpyHtoD from pageable memory, which may return before its DMA ends) runs on the legacy
// default stream, which our non-blocking measurement streams do not wait for: call this between.
Status WaitForSetup(const CudaDriver& driver);

class DeviceBuffer {
 public:
  // Allocates in the current context.
  static Result<DeviceBuffer> Allocate(const CudaDriver& driver, size_t bytes);
  // Takes over `pointer` (from the caller's own cuMemAlloc, which needed its CUresult): freed with it.
  static DeviceBuffer Adopt(const CudaDriver& driver, cuda::CUdeviceptr pointer, size_t bytes);
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  ~DeviceBuffer();

  cuda::CUdeviceptr get() const { return pointer_; }
  void* as_pointer() const { return reinterpret_cast<void*>(static_cast<uintptr_t>(pointer_)); }
  size_t bytes() const { return bytes_; }

 private:
  const CudaDriver* driver_ = nullptr;
  cuda::CUdeviceptr pointer_ = 0;
  size_t bytes_ = 0;
};

// Page-locked host memory, portable across contexts (every GPU's copies can use it).
class PinnedBuffer {
 public:
  static Result<PinnedBuffer> Allocate(const CudaDriver& driver, size_t bytes);
  PinnedBuffer() = default;
  PinnedBuffer(PinnedBuffer&& other) noexcept { *this = std::move(other); }
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  ~PinnedBuffer();
  void* get() const { return pointer_; }
  size_t bytes() const { return bytes_; }

 private:
  const CudaDriver* driver_ = nullptr;
  void* pointer_ = nullptr;
  size_t bytes_ = 0;
};

class Stream {
 public:
  static Result<Stream> Create(const CudaDriver& driver);  // non-blocking, in the current context
  Stream() = default;
  Stream(Stream&& other) noexcept { *this = std::move(other); }
  Stream& operator=(Stream&& other) noexcept;
  ~Stream();
  cuda::CUstream get() const { return stream_; }
  Status Synchronize() const;

 private:
  const CudaDriver* driver_ = nullptr;
  cuda::CUstream stream_ = nullptr;
};

// A pair of timing events around work enqueued on one stream.
class EventTimer {
 public:
  static Result<EventTimer> Create(const CudaDriver& driver);
  EventTimer() = default;
  EventTimer(EventTimer&& other) noexcept { *this = std::move(other); }
  EventTimer& operator=(EventTimer&& other) noexcept;
  ~EventTimer();
  Status Start(const Stream& stream) const;
  Status Stop(const Stream& stream) const;
  Result<double> ElapsedMs() const;  // waits for the stop event

 private:
  const CudaDriver* driver_ = nullptr;
  cuda::CUevent start_ = nullptr;
  cuda::CUevent stop_ = nullptr;
};

}  // namespace labcheck::gpu

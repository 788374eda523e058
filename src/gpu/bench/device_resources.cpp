#include "gpu/bench/device_resources.h"

#include <utility>

namespace labcheck::gpu {

Result<std::shared_ptr<DeviceContext>> DeviceContext::Open(const CudaDriver& driver, int ordinal) {
  std::shared_ptr<DeviceContext> context(new DeviceContext(driver, ordinal));
  const auto& api = driver.api();
  Status status = driver.Check(api.cuDeviceGet(&context->device_, ordinal), "cuDeviceGet");
  if (!status.ok()) return status;
  status = driver.Check(api.cuDevicePrimaryCtxRetain(&context->context_, context->device_), "cuDevicePrimaryCtxRetain");
  if (!status.ok()) {
    context->context_ = nullptr;
    return status;
  }
  status = context->MakeCurrent();
  if (!status.ok()) return status;
  return context;
}

DeviceContext::~DeviceContext() {
  if (context_ != nullptr) driver_.api().cuDevicePrimaryCtxRelease(device_);
}

Status DeviceContext::MakeCurrent() const {
  return driver_.Check(driver_.api().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

Status WaitForSetup(const CudaDriver& driver) {
  return driver.Check(driver.api().cuCtxSynchronize(), "cuCtxSynchronize");
}

Result<DeviceBuffer> DeviceBuffer::Allocate(const CudaDriver& driver, size_t bytes) {
  DeviceBuffer buffer;
  Status status = driver.Check(driver.api().cuMemAlloc(&buffer.pointer_, bytes), "cuMemAlloc");
  if (!status.ok()) return status;
  buffer.driver_ = &driver;
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer DeviceBuffer::Adopt(const CudaDriver& driver, cuda::CUdeviceptr pointer, size_t bytes) {
  DeviceBuffer buffer;
  buffer.driver_ = &driver;
  buffer.pointer_ = pointer;
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(pointer_, other.pointer_);
  std::swap(bytes_, other.bytes_);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (driver_ != nullptr && pointer_ != 0) driver_->api().cuMemFree(pointer_);
}

Result<PinnedBuffer> PinnedBuffer::Allocate(const CudaDriver& driver, size_t bytes) {
  PinnedBuffer buffer;
  Status status = driver.Check(driver.api().cuMemHostAlloc(&buffer.pointer_, bytes, cuda::kMemHostAllocPortable),
                               "cuMemHostAlloc");
  if (!status.ok()) return status;
  buffer.driver_ = &driver;
  buffer.bytes_ = bytes;
  return buffer;
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(pointer_, other.pointer_);
  std::swap(bytes_, other.bytes_);
  return *this;
}

PinnedBuffer::~PinnedBuffer() {
  if (driver_ != nullptr && pointer_ != nullptr) driver_->api().cuMemFreeHost(pointer_);
}

Result<Stream> Stream::Create(const CudaDriver& driver) {
  Stream stream;
  Status status = driver.Check(driver.api().cuStreamCreate(&stream.stream_, cuda::kStreamNonBlocking), "cuStreamCreate");
  if (!status.ok()) return status;
  stream.driver_ = &driver;
  return stream;
}

Stream& Stream::operator=(Stream&& other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(stream_, other.stream_);
  return *this;
}

Stream::~Stream() {
  if (driver_ != nullptr && stream_ != nullptr) driver_->api().cuStreamDestroy(stream_);
}

Status Stream::Synchronize() const {
  return driver_->Check(driver_->api().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

Result<EventTimer> EventTimer::Create(const CudaDriver& driver) {
  EventTimer timer;
  timer.driver_ = &driver;
  Status status = driver.Check(driver.api().cuEventCreate(&timer.start_, cuda::kEventDefault), "cuEventCreate");
  if (status.ok()) status = driver.Check(driver.api().cuEventCreate(&timer.stop_, cuda::kEventDefault), "cuEventCreate");
  if (!status.ok()) return status;
  return timer;
}

EventTimer& EventTimer::operator=(EventTimer&& other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(start_, other.start_);
  std::swap(stop_, other.stop_);
  return *this;
}

EventTimer::~EventTimer() {
  if (driver_ == nullptr) return;
  if (start_ != nullptr) driver_->api().cuEventDestroy(start_);
  if (stop_ != nullptr) driver_->api().cuEventDestroy(stop_);
}

Status EventTimer::Start(const Stream& stream) const {
  return driver_->Check(driver_->api().cuEventRecord(start_, stream.get()), "cuEventRecord");
}

Status EventTimer::Stop(const Stream& stream) const {
  return driver_->Check(driver_->api().cuEventRecord(stop_, stream.get()), "cuEventRecord");
}

Result<double> EventTimer::ElapsedMs() const {
  Status status = driver_->Check(driver_->api().cuEventSynchronize(stop_), "cuEventSynchronize");
  if (!status.ok()) return status;
  float ms = 0;
  status = driver_->Check(driver_->api().cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
  if (!status.ok()) return status;
  return static_cast<double>(ms);
}

}  // namespace labcheck::gpu

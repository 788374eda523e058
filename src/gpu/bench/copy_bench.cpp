#include "gpu/bench/copy_bench.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

namespace labcheck::gpu {

namespace {

// Times `enqueue` (one copy on `stream`) `plan.repeats` times back to back with event pairs.
Result<Sampled> TimeCopies(const CudaDriver& driver, const Stream& stream, const CopyPlan& plan,
                           const std::function<Status()>& enqueue) {
  for (int i = 0; i < plan.warmup; ++i) {
    Status status = enqueue();
    if (!status.ok()) return status;
  }
  std::vector<EventTimer> timers;
  for (int i = 0; i < plan.repeats; ++i) {
    Result<EventTimer> timer = EventTimer::Create(driver);
    if (!timer.ok()) return timer.status();
    timers.push_back(std::move(timer).value());
  }
  for (EventTimer& timer : timers) {
    Status status = timer.Start(stream);
    if (status.ok()) status = enqueue();
    if (status.ok()) status = timer.Stop(stream);
    if (!status.ok()) return status;
  }
  std::vector<double> ms;
  for (EventTimer& timer : timers) {
    Result<double> elapsed = timer.ElapsedMs();
    if (!elapsed.ok()) return elapsed.status();
    ms.push_back(*elapsed);
  }
  return Summarise(ms);
}

CopyFigure Figure(size_t bytes, double counted, Sampled sampled, NvmlSamples nvml) {
  CopyFigure figure;
  figure.bytes = bytes;
  figure.bytes_counted = counted;
  figure.copy_ms = sampled;
  figure.gbps = GigabytesPerSecond(counted, sampled.median);
  figure.nvml = nvml;
  return figure;
}

}  // namespace

Result<CopyFigure> MeasureDeviceCopy(const DeviceContext& context, const CopyPlan& plan, const Nvml* nvml,
                                     nvml::nvmlDevice_t device) {
  const CudaDriver& driver = context.driver();
  Status status = context.MakeCurrent();
  if (!status.ok()) return status;
  Result<DeviceBuffer> source = DeviceBuffer::Allocate(driver, plan.bytes);
  if (!source.ok()) return source.status();
  Result<DeviceBuffer> destination = DeviceBuffer::Allocate(driver, plan.bytes);
  if (!destination.ok()) return destination.status();
  // Non-zero content: some memory systems compress zeros.
  status = driver.Check(driver.api().cuMemsetD32(source->get(), 0x3F8CCCCD, plan.bytes / 4), "cuMemsetD32");
  if (!status.ok()) return status;
  Result<Stream> stream = Stream::Create(driver);
  if (!stream.ok()) return stream.status();
  NvmlSampler sampler(nvml, device);
  Result<Sampled> sampled = TimeCopies(driver, *stream, plan, [&] {
    return driver.Check(driver.api().cuMemcpyDtoDAsync(destination->get(), source->get(), plan.bytes, stream->get()),
                        "cuMemcpyDtoDAsync");
  });
  NvmlSamples samples = sampler.Stop();
  if (!sampled.ok()) return sampled.status();
  return Figure(plan.bytes, 2.0 * plan.bytes, *sampled, samples);
}

Result<CopyFigure> MeasureHostCopy(const DeviceContext& context, HostMemory memory, CopyDirection direction,
                                   const CopyPlan& plan, const Nvml* nvml, nvml::nvmlDevice_t device) {
  const CudaDriver& driver = context.driver();
  const auto& api = driver.api();
  Status status = context.MakeCurrent();
  if (!status.ok()) return status;
  Result<DeviceBuffer> device_buffer = DeviceBuffer::Allocate(driver, plan.bytes);
  if (!device_buffer.ok()) return device_buffer.status();
  const bool to_device = direction == CopyDirection::HostToDevice;

  if (memory == HostMemory::Pinned) {
    Result<PinnedBuffer> host = PinnedBuffer::Allocate(driver, plan.bytes);
    if (!host.ok()) return host.status();
    std::memset(host->get(), 0x5A, plan.bytes);  // touch every page before timing
    Result<Stream> stream = Stream::Create(driver);
    if (!stream.ok()) return stream.status();
    NvmlSampler sampler(nvml, device);
    Result<Sampled> sampled = TimeCopies(driver, *stream, plan, [&] {
      return to_device ? driver.Check(api.cuMemcpyHtoDAsync(device_buffer->get(), host->get(), plan.bytes, stream->get()),
                                      "cuMemcpyHtoDAsync")
                       : driver.Check(api.cuMemcpyDtoHAsync(host->get(), device_buffer->get(), plan.bytes, stream->get()),
                                      "cuMemcpyDtoHAsync");
    });
    NvmlSamples samples = sampler.Stop();
    if (!sampled.ok()) return sampled.status();
    return Figure(plan.bytes, static_cast<double>(plan.bytes), *sampled, samples);
  }

  std::unique_ptr<char[]> host(new char[plan.bytes]);
  std::memset(host.get(), 0x5A, plan.bytes);
  auto copy = [&] {
    return to_device ? driver.Check(api.cuMemcpyHtoD(device_buffer->get(), host.get(), plan.bytes), "cuMemcpyHtoD")
                     : driver.Check(api.cuMemcpyDtoH(host.get(), device_buffer->get(), plan.bytes), "cuMemcpyDtoH");
  };
  for (int i = 0; i < plan.warmup; ++i) {
    status = copy();
    if (!status.ok()) return status;
  }
  NvmlSampler sampler(nvml, device);
  std::vector<double> ms;
  for (int i = 0; i < plan.repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    status = copy();
    if (!status.ok()) return status;
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return Figure(plan.bytes, static_cast<double>(plan.bytes), Summarise(ms), sampler.Stop());
}

Result<CopyFigure> MeasurePeerCopy(const DeviceContext& source, const DeviceContext& destination, bool peer_access,
                                   const CopyPlan& plan) {
  const CudaDriver& driver = source.driver();
  const auto& api = driver.api();
  Status status = destination.MakeCurrent();
  if (!status.ok()) return status;
  Result<DeviceBuffer> target = DeviceBuffer::Allocate(driver, plan.bytes);
  if (!target.ok()) return target.status();
  status = source.MakeCurrent();
  if (!status.ok()) return status;
  Result<DeviceBuffer> origin = DeviceBuffer::Allocate(driver, plan.bytes);
  if (!origin.ok()) return origin.status();
  status = driver.Check(api.cuMemsetD32(origin->get(), 0x3F8CCCCD, plan.bytes / 4), "cuMemsetD32");
  if (!status.ok()) return status;

  // Peer access is a property of the context pair; set it both ways and undo it afterwards, so
  // the "without" figure that follows or precedes is not affected.
  auto set_access = [&](bool on) -> Status {
    for (auto [from, to] : {std::pair{&source, &destination}, std::pair{&destination, &source}}) {
      Status made = from->MakeCurrent();
      if (!made.ok()) return made;
      cuda::CUresult r = on ? api.cuCtxEnablePeerAccess(to->context(), 0) : api.cuCtxDisablePeerAccess(to->context());
      if (r != cuda::kSuccess && r != cuda::kErrorPeerAccessAlreadyEnabled && r != cuda::kErrorPeerAccessNotEnabled)
        return driver.Check(r, on ? "cuCtxEnablePeerAccess" : "cuCtxDisablePeerAccess");
    }
    return source.MakeCurrent();
  };
  status = set_access(peer_access);
  if (!status.ok()) return status;
  Result<Stream> stream = Stream::Create(driver);
  if (!stream.ok()) return stream.status();
  Result<Sampled> sampled = TimeCopies(driver, *stream, plan, [&] {
    return driver.Check(api.cuMemcpyPeerAsync(target->get(), destination.context(), origin->get(), source.context(),
                                              plan.bytes, stream->get()),
                        "cuMemcpyPeerAsync");
  });
  Status synced = stream->Synchronize();
  if (peer_access) set_access(false);
  if (!sampled.ok()) return sampled.status();
  if (!synced.ok()) return synced;
  return Figure(plan.bytes, static_cast<double>(plan.bytes), *sampled, {});
}

}  // namespace labcheck::gpu

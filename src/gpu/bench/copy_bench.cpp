#include "gpu/bench/copy_bench.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

namespace labcheck::gpu {

namespace {

struct TimedCopies {
  Sampled ms;
  NvmlSamples nvml;
};

// The warm-up, then (after `ready`: where the threads of an "all at once" run meet) `plan.repeats`
// copies back to back on `stream`, each between two events, so the figure is the device's time
// for the copy whatever the call's return says. NVML watches while they run; `async` copies are
// still queued when the last is enqueued, so one sample is taken right then.
Result<TimedCopies> TimeCopies(const CudaDriver& driver, const Stream& stream, const CopyPlan& plan,
                               const std::function<Status()>& enqueue, const ReadyFn& ready, const Nvml* nvml,
                               nvml::nvmlDevice_t device, bool async) {
  for (int i = 0; i < plan.warmup; ++i) {
    Status status = enqueue();
    if (!status.ok()) return status;
  }
  Status warmed = stream.Synchronize();
  if (!warmed.ok()) return warmed;
  if (ready) ready();
  std::vector<EventTimer> timers;
  for (int i = 0; i < plan.repeats; ++i) {
    Result<EventTimer> timer = EventTimer::Create(driver);
    if (!timer.ok()) return timer.status();
    timers.push_back(std::move(timer).value());
  }
  NvmlSampler sampler(nvml, device, plan.nvml_period_ms);
  for (EventTimer& timer : timers) {
    Status status = timer.Start(stream);
    if (status.ok()) status = enqueue();
    if (status.ok()) status = timer.Stop(stream);
    if (!status.ok()) return status;
    sampler.SetBusy(true);
  }
  if (async) sampler.SampleNow();
  std::vector<double> ms;
  for (EventTimer& timer : timers) {
    Result<double> elapsed = timer.ElapsedMs();
    if (!elapsed.ok()) return elapsed.status();
    ms.push_back(*elapsed);
  }
  sampler.SetBusy(false);
  return TimedCopies{Summarise(ms), sampler.Stop()};
}

CopyFigure CopyFigureOf(size_t bytes, double counted, const TimedCopies& timed) {
  CopyFigure figure;
  figure.bytes = bytes;
  figure.bytes_counted = counted;
  figure.copy_ms = timed.ms;
  figure.gbps = GigabytesPerSecond(counted, timed.ms.median);
  figure.nvml = timed.nvml;
  return figure;
}

}  // namespace

Result<CopyFigure> TimeEnqueued(const CudaDriver& driver, const Stream& stream, const CopyPlan& plan, size_t bytes,
                                double counted, const std::function<Status()>& enqueue, const ReadyFn& ready,
                                const Nvml* nvml, nvml::nvmlDevice_t device) {
  Result<TimedCopies> timed = TimeCopies(driver, stream, plan, enqueue, ready, nvml, device, /*async=*/true);
  if (!timed.ok()) return timed.status();
  return CopyFigureOf(bytes, counted, *timed);
}

Result<CopyFigure> MeasureDeviceCopy(const DeviceContext& context, const CopyPlan& plan, const Nvml* nvml,
                                     nvml::nvmlDevice_t device, const ReadyFn& ready) {
  const CudaDriver& driver = context.driver();
  Status status = context.MakeCurrent();
  if (!status.ok()) return status;
  Result<DeviceBuffer> source = DeviceBuffer::Allocate(driver, plan.bytes);
  if (!source.ok()) return source.status();
  Result<DeviceBuffer> destination = DeviceBuffer::Allocate(driver, plan.bytes);
  if (!destination.ok()) return destination.status();
  // Non-zero content: some memory systems compress zeros.
  status = driver.Check(driver.api().cuMemsetD32(source->get(), 0x3F8CCCCD, plan.bytes / 4), "cuMemsetD32");
  if (status.ok()) status = WaitForSetup(driver);
  if (!status.ok()) return status;
  Result<Stream> stream = Stream::Create(driver);
  if (!stream.ok()) return stream.status();
  return TimeEnqueued(driver, *stream, plan, plan.bytes, 2.0 * plan.bytes, [&] {
    return driver.Check(driver.api().cuMemcpyDtoDAsync(destination->get(), source->get(), plan.bytes, stream->get()),
                        "cuMemcpyDtoDAsync");
  }, ready, nvml, device);
}

Result<CopyFigure> MeasureHostCopy(const DeviceContext& context, HostMemory memory, CopyDirection direction,
                                   const CopyPlan& plan, HostBufferPool& host_buffers, const NumaPlacement& placement,
                                   const Nvml* nvml, nvml::nvmlDevice_t device, const ReadyFn& ready) {
  const CudaDriver& driver = context.driver();
  const auto& api = driver.api();
  // Before the lease: a new buffer's pages land on the node of the thread that first touches them.
  ScopedCpuAffinity pinned_to_node(placement.cpus);
  if (!pinned_to_node.status().ok()) return pinned_to_node.status();
  Status status = context.MakeCurrent();
  if (!status.ok()) return status;
  Result<DeviceBuffer> device_buffer = DeviceBuffer::Allocate(driver, plan.bytes);
  if (!device_buffer.ok()) return device_buffer.status();
  const bool to_device = direction == CopyDirection::HostToDevice;
  const bool pinned = memory == HostMemory::Pinned;
  Result<HostBufferPool::Lease> lease = host_buffers.Take(memory, plan.bytes, PlacementKey(placement));
  if (!lease.ok()) return lease.status();
  void* host = lease->get();
  Result<Stream> stream = Stream::Create(driver);
  if (!stream.ok()) return stream.status();
  // Pageable memory goes through the same async calls on the same stream (as PyTorch's .to()
  // does): the driver stages it; the events around each copy end only when its DMA has ended,
  // while the call itself may return earlier (CUDA's "API synchronization behavior").
  Result<TimedCopies> timed = TimeCopies(driver, *stream, plan, [&] {
    return to_device ? driver.Check(api.cuMemcpyHtoDAsync(device_buffer->get(), host, plan.bytes, stream->get()),
                                    "cuMemcpyHtoDAsync")
                     : driver.Check(api.cuMemcpyDtoHAsync(host, device_buffer->get(), plan.bytes, stream->get()),
                                    "cuMemcpyDtoHAsync");
  }, ready, nvml, device, /*async=*/pinned);
  if (!timed.ok()) return timed.status();
  return CopyFigureOf(plan.bytes, static_cast<double>(plan.bytes), *timed);
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
  if (status.ok()) status = PlantCopyPattern(driver, origin->get(), plan.bytes);
  if (status.ok()) status = WaitForSetup(driver);
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
  Result<TimedCopies> timed = TimeCopies(driver, *stream, plan, [&] {
    return driver.Check(api.cuMemcpyPeerAsync(target->get(), destination.context(), origin->get(), source.context(),
                                              plan.bytes, stream->get()),
                        "cuMemcpyPeerAsync");
  }, {}, nullptr, nullptr, /*async=*/true);
  Status synced = stream->Synchronize();
  if (peer_access) set_access(false);
  if (!timed.ok()) return timed.status();
  if (!synced.ok()) return synced;
  CopyFigure figure = CopyFigureOf(plan.bytes, static_cast<double>(plan.bytes), *timed);
  status = destination.MakeCurrent();
  if (!status.ok()) return status;
  Result<DataCheck> delivered = CheckCopyPattern(driver, target->get(), plan.bytes);
  if (!delivered.ok()) return delivered.status();
  figure.data_check = *delivered;
  return figure;
}

}  // namespace labcheck::gpu

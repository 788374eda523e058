// Copies through the copy engines (cuMemcpy*Async): device memory bandwidth, host↔device over
// PCIe, and GPU→GPU. Each figure says how its bytes are counted (docs/measurement-keys.md).
#pragma once
#include <cstddef>
#include <functional>

#include "core/status.h"
#include "gpu/bench/device_resources.h"
#include "gpu/bench/host_buffers.h"
#include "gpu/bench/nvml_sampler.h"
#include "gpu/bench/stats.h"

namespace labcheck::gpu {

struct CopyPlan {
  size_t bytes = 0;
  int warmup = 3;
  int repeats = 20;
  int nvml_period_ms = 20;  // NVML samples while the timed copies run
};

// Called once setup and warm-up are done, right before the timed part: the barrier of an "all
// GPUs at once" run (bench/concurrent.h), so that the timed parts really overlap.
using ReadyFn = std::function<void()>;

struct CopyFigure {
  size_t bytes = 0;        // one copy's size
  double bytes_counted = 0;  // per copy, as the figure counts them
  Sampled copy_ms;
  double gbps = 0;         // bytes_counted / median copy time, 10^9 B/s
  NvmlSamples nvml;
};

// Device-to-device copy within one GPU, counted as bytes read + bytes written (2× the buffer),
// as STREAM's copy and nvbandwidth do. The caller picks a buffer far larger than L2.
Result<CopyFigure> MeasureDeviceCopy(const DeviceContext& context, const CopyPlan& plan, const Nvml* nvml,
                                     nvml::nvmlDevice_t device, const ReadyFn& ready = {});

enum class CopyDirection { HostToDevice, DeviceToHost };

// Host↔device, counted as the bytes copied. Pinned and pageable (malloc'd: the driver stages it
// through its own pinned buffers) alike: cuMemcpy*Async on one stream, CUDA events around each copy.
// The host buffer is leased from `host_buffers`, so a job pins and touches it once.
Result<CopyFigure> MeasureHostCopy(const DeviceContext& context, HostMemory memory, CopyDirection direction,
                                   const CopyPlan& plan, HostBufferPool& host_buffers, const Nvml* nvml,
                                   nvml::nvmlDevice_t device, const ReadyFn& ready = {});

// GPU→GPU with cuMemcpyPeerAsync, counted as the bytes copied. With `peer_access` the two
// contexts are given direct access to each other first (and it is taken back afterwards);
// without it the driver stages the copy through host memory.
Result<CopyFigure> MeasurePeerCopy(const DeviceContext& source, const DeviceContext& destination, bool peer_access,
                                   const CopyPlan& plan);

}  // namespace labcheck::gpu

// Copies through the copy engines (cuMemcpy*Async): device memory bandwidth, host↔device over
// PCIe, and GPU→GPU. Each figure says how its bytes are counted (docs/measurement-keys.md). The
// same memory measured by the SMs, with our own kernels: bench/sm_copy_bench.h.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>

#include "core/status.h"
#include "gpu/bench/copy_verification.h"
#include "gpu/bench/device_resources.h"
#include "gpu/bench/host_buffers.h"
#include "gpu/bench/kernel_module.h"
#include "gpu/bench/numa_placement.h"
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
  std::optional<LaunchShape> launch;  // kernels only: the grid they ran on
  std::optional<DataCheck> data_check;  // copies whose bytes were read back (GPU→GPU)
};

// Runs the warm-up, then `plan.repeats` calls of `enqueue` on `stream`, each between two CUDA
// events, and returns the figure: `counted` bytes per call over the median event time. `ready`
// as above; NVML watches while they run. Shared by every copy measurement (and the SM kernels).
Result<CopyFigure> TimeEnqueued(const CudaDriver& driver, const Stream& stream, const CopyPlan& plan, size_t bytes,
                                double counted, const std::function<Status()>& enqueue, const ReadyFn& ready,
                                const Nvml* nvml, nvml::nvmlDevice_t device);

// Device-to-device copy within one GPU by the driver (cuMemcpyDtoDAsync, which nvbandwidth's
// device_local_copy times as a copy-engine copy; how fast the driver runs it depends on the card),
// counted as bytes read + bytes written (2× the buffer), as STREAM's and BabelStream's
// Copy count it; nvbandwidth's device_local_copy counts the bytes once, so its figure is half of
// ours for the same speed. The caller picks a buffer far larger than L2.
Result<CopyFigure> MeasureDeviceCopy(const DeviceContext& context, const CopyPlan& plan, const Nvml* nvml,
                                     nvml::nvmlDevice_t device, const ReadyFn& ready = {});

enum class CopyDirection { HostToDevice, DeviceToHost };

// Host↔device, counted as the bytes copied. Pinned and pageable (malloc'd: the driver stages it
// through its own pinned buffers) alike: cuMemcpy*Async on one stream, CUDA events around each copy.
// The host buffer is leased from `host_buffers`, so a job pins and touches it once per NUMA node.
// The calling thread runs on `placement`'s CPUs (the GPU's own node) while it takes the buffer and
// while it copies, as nvbandwidth does, and gets its CPUs back afterwards.
Result<CopyFigure> MeasureHostCopy(const DeviceContext& context, HostMemory memory, CopyDirection direction,
                                   const CopyPlan& plan, HostBufferPool& host_buffers, const NumaPlacement& placement,
                                   const Nvml* nvml, nvml::nvmlDevice_t device, const ReadyFn& ready = {});

// GPU→GPU with cuMemcpyPeerAsync, counted as the bytes copied. With `peer_access` the two
// contexts are given direct access to each other first (and it is taken back afterwards);
// without it the driver stages the copy through host memory. The destination is read back after
// the copies (bench/copy_verification.h): a fast copy of wrong bytes says so in `data_check`.
Result<CopyFigure> MeasurePeerCopy(const DeviceContext& source, const DeviceContext& destination, bool peer_access,
                                   const CopyPlan& plan);

}  // namespace labcheck::gpu

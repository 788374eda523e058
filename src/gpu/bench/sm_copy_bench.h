// Device memory bandwidth as the SMs see it: our own PTX kernels (bench/copy_kernels_ptx.h) on
// every SM, the figure BabelStream's Copy and Triad and nvbandwidth's SM copies give. The driver's
// cuMemcpyDtoDAsync (bench/copy_bench.h) runs however the driver runs it on that card: on an
// H20-3e nvbandwidth's device_local_copy reads about 1.1 TB/s counted once (NVIDIA/nvbandwidth
// issue 48) where an SM copy moves close to the 4.8 TB/s HBM3e. The card is judged by this one.
#pragma once
#include <optional>
#include <string>

#include "gpu/bench/copy_bench.h"
#include "gpu/bench/kernel_module.h"

namespace labcheck::gpu {

enum class SmKernel {
  Copy,   // dst ← src: bytes read + bytes written, 2× the buffer (STREAM's and BabelStream's Copy)
  Triad,  // a ← b + s·c in float: 2 reads + 1 write, 3× the buffer (STREAM's and BabelStream's Triad)
};

// One full wave on every SM: sm_count × (max_threads_per_sm / 256) blocks of 256 threads. The
// kernels are capped at 32 registers, so that many blocks are resident at once on every
// architecture (1024, 1536 or 2048 threads per SM; 64 K registers). nvbandwidth launches one block
// per SM and BabelStream one thread per element; a grid-stride loop over one full wave keeps every
// SM busy to the end without either.
LaunchShape GridForEverySm(int sm_count, int max_threads_per_sm);

// Times `kernel` over buffers of `plan.bytes` each (a multiple of 16) on `context`'s GPU, CUDA
// events around each launch, median. Afterwards the first, middle and last 16 bytes of the output
// are read back and must be what the kernel had to write: a kernel that skipped its work cannot
// report a speed. Needs the driver's module entry points (KernelsUnavailable is nullopt).
Result<CopyFigure> MeasureSmKernel(const DeviceContext& context, SmKernel kernel, const CopyPlan& plan,
                                   const Nvml* nvml, nvml::nvmlDevice_t device, const ReadyFn& ready = {});

}  // namespace labcheck::gpu

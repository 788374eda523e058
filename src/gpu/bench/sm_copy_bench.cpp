#include "gpu/bench/sm_copy_bench.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "gpu/bench/copy_kernels_ptx.h"

namespace labcheck::gpu {

namespace {

// Input patterns, as 32-bit words (cuMemsetD32): non-zero, since some memory systems compress
// zeros. The triad's are floats whose result is exact: 1.0 + 0.5 · 2.0 = 2.0.
constexpr uint32_t kCopySource = 0x3F8CCCCD;  // 1.1f
constexpr uint32_t kTriadB = 0x3F800000;      // 1.0f
constexpr uint32_t kTriadC = 0x40000000;      // 2.0f
constexpr float kTriadScalar = 0.5f;
constexpr uint32_t kTriadResult = 0x40000000;  // 2.0f

Result<int> DeviceAttribute(const CudaDriver& driver, cuda::CUdevice device, int attribute) {
  int value = 0;
  Status status = driver.Check(driver.api().cuDeviceGetAttribute(&value, attribute, device), "cuDeviceGetAttribute");
  if (!status.ok()) return status;
  return value;
}

Status Fill(const CudaDriver& driver, const DeviceBuffer& buffer, uint32_t word) {
  return driver.Check(driver.api().cuMemsetD32(buffer.get(), word, buffer.bytes() / 4), "cuMemsetD32");
}

// The first, middle and last 16-byte elements of `output` must hold `word` four times.
Status Verify(const CudaDriver& driver, const DeviceBuffer& output, uint32_t word, const char* kernel) {
  const size_t bytes = output.bytes();
  for (size_t offset : {size_t{0}, bytes / 2 / 16 * 16, bytes - 16}) {
    uint32_t got[4] = {};
    Status status = driver.Check(driver.api().cuMemcpyDtoH(got, output.get() + offset, sizeof got), "cuMemcpyDtoH");
    if (!status.ok()) return status;
    for (uint32_t value : got)
      if (value != word)
        return Status::Error(fmt::format("the SM {} kernel left 0x{:08x} at byte {} where it had to write 0x{:08x}",
                                         kernel, value, offset, word));
  }
  return Status::Ok();
}

}  // namespace

LaunchShape GridForEverySm(int sm_count, int max_threads_per_sm) {
  const unsigned per_sm = std::max(1u, static_cast<unsigned>(std::max(0, max_threads_per_sm)) / kKernelThreadsPerBlock);
  return {static_cast<unsigned>(std::max(1, sm_count)) * per_sm, kKernelThreadsPerBlock};
}

Result<CopyFigure> MeasureSmKernel(const DeviceContext& context, SmKernel kernel, const CopyPlan& plan,
                                   const Nvml* nvml, nvml::nvmlDevice_t device, const ReadyFn& ready) {
  const CudaDriver& driver = context.driver();
  if (plan.bytes < 16 || plan.bytes % 16 != 0)
    return Status::Error(fmt::format("the SM kernels need a multiple of 16 bytes, not {}", plan.bytes));
  Status status = context.MakeCurrent();
  if (!status.ok()) return status;
  Result<int> sm_count = DeviceAttribute(driver, context.device(), cuda::kAttrMultiprocessorCount);
  if (!sm_count.ok()) return sm_count.status();
  // Without the figure, 1024 (the least any architecture has) never asks for a second wave.
  Result<int> threads_per_sm = DeviceAttribute(driver, context.device(), cuda::kAttrMaxThreadsPerMultiprocessor);
  const LaunchShape shape = GridForEverySm(*sm_count, threads_per_sm.ok() ? *threads_per_sm : 1024);

  const bool triad = kernel == SmKernel::Triad;
  std::vector<DeviceBuffer> buffers;  // output first
  for (int i = 0; i < (triad ? 3 : 2); ++i) {
    Result<DeviceBuffer> buffer = DeviceBuffer::Allocate(driver, plan.bytes);
    if (!buffer.ok()) return buffer.status();
    buffers.push_back(std::move(buffer).value());
  }
  status = Fill(driver, buffers[0], 0);
  if (status.ok()) status = Fill(driver, buffers[1], triad ? kTriadB : kCopySource);
  if (status.ok() && triad) status = Fill(driver, buffers[2], kTriadC);
  if (status.ok()) status = WaitForSetup(driver);
  if (!status.ok()) return status;

  Result<KernelModule> module = KernelModule::Load(driver, kCopyKernelsPtx);
  if (!module.ok()) return module.status();
  Result<cuda::CUfunction> function = module->Function(triad ? kTriadKernelName : kCopyKernelName);
  if (!function.ok()) return function.status();
  Result<Stream> stream = Stream::Create(driver);
  if (!stream.ok()) return stream.status();

  cuda::CUdeviceptr out = buffers[0].get(), in = buffers[1].get(), in2 = triad ? buffers[2].get() : 0;
  unsigned long long elements = plan.bytes / 16;
  float scalar = kTriadScalar;
  void* copy_params[] = {&out, &in, &elements};
  void* triad_params[] = {&out, &in, &in2, &elements, &scalar};
  void** params = triad ? static_cast<void**>(triad_params) : static_cast<void**>(copy_params);
  const double counted = (triad ? 3.0 : 2.0) * static_cast<double>(plan.bytes);
  Result<CopyFigure> figure = TimeEnqueued(driver, *stream, plan, plan.bytes, counted, [&] {
    return module->Launch(*function, shape, stream->get(), params);
  }, ready, nvml, device);
  if (!figure.ok()) return figure;
  status = stream->Synchronize();
  if (status.ok()) status = Verify(driver, buffers[0], triad ? kTriadResult : kCopySource, triad ? "triad" : "copy");
  if (!status.ok()) return status;
  figure->launch = shape;
  return figure;
}

}  // namespace labcheck::gpu

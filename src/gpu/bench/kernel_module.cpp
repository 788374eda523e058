#include "gpu/bench/kernel_module.h"

#include <cstdint>
#include <string_view>
#include <utility>

namespace labcheck::gpu {

std::optional<std::string> KernelsUnavailable(const CudaDriver& driver) {
  const auto& api = driver.api();
  const std::pair<bool, const char*> needed[] = {{api.cuModuleLoadDataEx != nullptr, "cuModuleLoadDataEx"},
                                                 {api.cuModuleGetFunction != nullptr, "cuModuleGetFunction"},
                                                 {api.cuModuleUnload != nullptr, "cuModuleUnload"},
                                                 {api.cuLaunchKernel != nullptr, "cuLaunchKernel"}};
  for (const auto& [bound, name] : needed)
    if (!bound) return std::string("the CUDA driver has no ") + name;
  return std::nullopt;
}

Result<KernelModule> KernelModule::Load(const CudaDriver& driver, const char* ptx) {
  if (auto missing = KernelsUnavailable(driver)) return Status::Error(*missing);
  // The JIT writes why it refused the PTX into this buffer; the size option is passed by value
  // in the pointer and comes back as the bytes written (cuda.h, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES).
  char log[4096] = {};
  cuda::CUjit_option options[] = {cuda::kJitErrorLogBuffer, cuda::kJitErrorLogBufferSizeBytes};
  void* values[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof log))};
  KernelModule module;
  const cuda::CUresult loaded = driver.api().cuModuleLoadDataEx(&module.module_, ptx, 2, options, values);
  if (loaded != cuda::kSuccess) {
    Status status = driver.Check(loaded, "cuModuleLoadDataEx");
    log[sizeof log - 1] = '\0';
    std::string_view jit(log);
    while (!jit.empty() && (jit.back() == '\n' || jit.back() == ' ')) jit.remove_suffix(1);
    return jit.empty() ? status : Status::Error(status.message() + " (JIT: " + std::string(jit) + ")");
  }
  module.driver_ = &driver;
  return module;
}

KernelModule& KernelModule::operator=(KernelModule&& other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(module_, other.module_);
  return *this;
}

KernelModule::~KernelModule() {
  if (module_ != nullptr && driver_ != nullptr) driver_->api().cuModuleUnload(module_);
}

Result<cuda::CUfunction> KernelModule::Function(const char* name) const {
  cuda::CUfunction function = nullptr;
  Status status = driver_->Check(driver_->api().cuModuleGetFunction(&function, module_, name),
                                 "cuModuleGetFunction");
  if (!status.ok()) return Status::Error(status.message() + " for " + name);
  return function;
}

Status KernelModule::Launch(cuda::CUfunction function, LaunchShape shape, cuda::CUstream stream, void** params) const {
  return driver_->Check(driver_->api().cuLaunchKernel(function, shape.blocks, 1, 1, shape.threads_per_block, 1, 1,
                                                      /*shared_bytes=*/0, stream, params, /*extra=*/nullptr),
                        "cuLaunchKernel");
}

}  // namespace labcheck::gpu

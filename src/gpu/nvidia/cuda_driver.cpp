#include "gpu/nvidia/cuda_driver.h"

#include <fmt/format.h>

namespace labcheck::gpu {

std::vector<SymbolBinding> CudaDriverSymbols(cuda::CudaDriverApi& a) {
  return {
      Required(a.cuInit, {"cuInit"}),
      Required(a.cuDriverGetVersion, {"cuDriverGetVersion"}),
      Optional(a.cuGetErrorName, {"cuGetErrorName"}),
      Optional(a.cuGetErrorString, {"cuGetErrorString"}),
      Required(a.cuDeviceGetCount, {"cuDeviceGetCount"}),
      Required(a.cuDeviceGet, {"cuDeviceGet"}),
      Required(a.cuDeviceGetName, {"cuDeviceGetName"}),
      Required(a.cuDeviceTotalMem, {"cuDeviceTotalMem_v2"}),
      Required(a.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}),
      Optional(a.cuDeviceGetUuid, {"cuDeviceGetUuid_v2", "cuDeviceGetUuid"}),
      Required(a.cuDeviceGetPCIBusId, {"cuDeviceGetPCIBusId"}),
      Required(a.cuDeviceCanAccessPeer, {"cuDeviceCanAccessPeer"}),
      Required(a.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}),
      Required(a.cuDevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}),
      Required(a.cuCtxSetCurrent, {"cuCtxSetCurrent"}),
      Required(a.cuCtxSynchronize, {"cuCtxSynchronize"}),
      Required(a.cuCtxEnablePeerAccess, {"cuCtxEnablePeerAccess"}),
      Required(a.cuCtxDisablePeerAccess, {"cuCtxDisablePeerAccess"}),
      Required(a.cuMemGetInfo, {"cuMemGetInfo_v2"}),
      Required(a.cuMemAlloc, {"cuMemAlloc_v2"}),
      Required(a.cuMemFree, {"cuMemFree_v2"}),
      Required(a.cuMemHostAlloc, {"cuMemHostAlloc"}),
      Required(a.cuMemFreeHost, {"cuMemFreeHost"}),
      Required(a.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}),
      Required(a.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}),
      Required(a.cuMemcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2"}),
      Required(a.cuMemcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2"}),
      Required(a.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"}),
      Required(a.cuMemcpyPeerAsync, {"cuMemcpyPeerAsync"}),
      Required(a.cuMemsetD32, {"cuMemsetD32_v2"}),
      Required(a.cuStreamCreate, {"cuStreamCreate"}),
      Required(a.cuStreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"}),
      Required(a.cuStreamSynchronize, {"cuStreamSynchronize"}),
      Required(a.cuStreamQuery, {"cuStreamQuery"}),
      Required(a.cuEventCreate, {"cuEventCreate"}),
      Required(a.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}),
      Required(a.cuEventRecord, {"cuEventRecord"}),
      Required(a.cuEventSynchronize, {"cuEventSynchronize"}),
      Required(a.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"}),
      Optional(a.cuModuleLoadDataEx, {"cuModuleLoadDataEx"}),
      Optional(a.cuModuleGetFunction, {"cuModuleGetFunction"}),
      Optional(a.cuModuleUnload, {"cuModuleUnload"}),
      Optional(a.cuLaunchKernel, {"cuLaunchKernel"}),
  };
}

namespace {

const Text kDriverHint = T(
    "установите или обновите проприетарный драйвер NVIDIA (sudo ubuntu-drivers install), "
    "перезагрузитесь и проверьте nvidia-smi",
    "install or update NVIDIA's proprietary driver (sudo ubuntu-drivers install), reboot and check nvidia-smi");

// Names for the results we act on, for when the driver cannot name them (the stub cannot).
const char* KnownResultName(cuda::CUresult result) {
  switch (result) {
    case cuda::kErrorStubLibrary: return "CUDA_ERROR_STUB_LIBRARY";
    case cuda::kErrorNoDevice: return "CUDA_ERROR_NO_DEVICE";
    case cuda::kErrorSystemDriverMismatch: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case cuda::kErrorCompatNotSupportedOnDevice: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case cuda::kErrorOutOfMemory: return "CUDA_ERROR_OUT_OF_MEMORY";
    case cuda::kErrorNotInitialized: return "CUDA_ERROR_NOT_INITIALIZED";
    default: return nullptr;
  }
}

}  // namespace

DriverProblem ClassifyInitResult(cuda::CUresult result, const std::string& error_name) {
  DriverProblem problem;
  problem.error = error_name;
  switch (result) {
    case cuda::kSuccess:
      return problem;
    case cuda::kErrorStubLibrary:
      problem.verdict = DriverVerdict::Skip;
      problem.reason = T("вместо драйвера загружена заглушка libcuda.so из CUDA Toolkit: GPU-драйвера нет",
                         "the CUDA toolkit's stub libcuda.so was loaded instead of a driver: no GPU driver");
      problem.hint = T("уберите папку stubs из LD_LIBRARY_PATH; если GPU есть, установите драйвер NVIDIA",
                       "remove the stubs folder from LD_LIBRARY_PATH; if there is a GPU, install NVIDIA's driver");
      return problem;
    case cuda::kErrorNoDevice:
      problem.verdict = DriverVerdict::Skip;
      problem.reason = T("драйвер NVIDIA есть, но видеокарт он не видит", "the NVIDIA driver sees no GPU");
      problem.hint = T("проверьте CUDA_VISIBLE_DEVICES и вывод nvidia-smi",
                       "check CUDA_VISIBLE_DEVICES and the output of nvidia-smi");
      return problem;
    case cuda::kErrorSystemDriverMismatch:
    case cuda::kErrorCompatNotSupportedOnDevice:
      problem.verdict = DriverVerdict::Fail;
      problem.reason = T("версии драйвера в ядре и в системе различаются (драйвер обновился без перезагрузки?)",
                         "the kernel driver and the user-space driver differ (updated without a reboot?)");
      problem.hint = kDriverHint;
      return problem;
    default:
      problem.verdict = DriverVerdict::Fail;
      problem.reason = T("драйвер CUDA не запустился: " + error_name, "the CUDA driver failed to start: " + error_name);
      problem.hint = kDriverHint;
      return problem;
  }
}

std::string CudaVersionText(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

std::string CudaDriver::VersionText() const { return CudaVersionText(version_); }

std::string CudaDriver::SimulatedMachine() const {
  // tests/sim's libcuda exports this one extra function; NVIDIA's never does.
  auto describe = reinterpret_cast<const char* (*)()>(loaded_.library.Symbol("labcheck_sim_machine"));
  const char* text = describe != nullptr ? describe() : nullptr;
  return text != nullptr ? text : "";
}

std::string CudaDriver::Describe(cuda::CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_.cuGetErrorName != nullptr) api_.cuGetErrorName(result, &name);
  if (api_.cuGetErrorString != nullptr) api_.cuGetErrorString(result, &text);
  if (name == nullptr) name = KnownResultName(result);
  std::string out = name != nullptr ? fmt::format("{} ({})", name, result) : fmt::format("CUresult {}", result);
  if (text != nullptr) out += std::string(": ") + text;
  return out;
}

Status CudaDriver::Check(cuda::CUresult result, const char* what) const {
  if (result == cuda::kSuccess) return Status::Ok();
  return Status::Error(std::string(what) + " failed: " + Describe(result));
}

std::unique_ptr<CudaDriver> CudaDriver::FromApi(const cuda::CudaDriverApi& api, int version) {
  auto driver = std::unique_ptr<CudaDriver>(new CudaDriver());
  driver->api_ = api;
  driver->version_ = version;
  return driver;
}

std::unique_ptr<CudaDriver> CudaDriver::Load(const LibrarySearchPaths& paths, DriverProblem* problem) {
  // libcuda.so (unversioned) is in the list so that a stubs folder on LD_LIBRARY_PATH is found
  // and reported as what it is, instead of "not found".
  LibrarySpec spec{"CUDA driver", {"libcuda.so.1", "libcuda.so"}, /*driver_library=*/true};
  auto driver = std::unique_ptr<CudaDriver>(new CudaDriver());
  Result<LoadedLibrary> loaded = LoadFirst(spec, paths, [&](const DynamicLibrary& library) {
    return BindSymbols(library, CudaDriverSymbols(driver->api_));
  });
  if (!loaded.ok()) {
    problem->verdict = DriverVerdict::Skip;
    problem->reason = T("драйвер NVIDIA не найден (нет libcuda.so.1)", "no NVIDIA driver found (no libcuda.so.1)");
    problem->hint = kDriverHint;
    problem->error = loaded.status().message();
    return nullptr;
  }
  driver->loaded_ = std::move(loaded).value();
  // Bound again: the acceptor filled api_ from a library that LoadFirst may have closed after a
  // later rejection; rebinding from the one we keep is cheap and removes that doubt.
  BindSymbols(driver->loaded_.library, CudaDriverSymbols(driver->api_));
  cuda::CUresult init = driver->api_.cuInit(0);
  *problem = ClassifyInitResult(init, driver->Describe(init));
  if (problem->verdict != DriverVerdict::Ready) return nullptr;
  driver->api_.cuDriverGetVersion(&driver->version_);
  return driver;
}

}  // namespace labcheck::gpu

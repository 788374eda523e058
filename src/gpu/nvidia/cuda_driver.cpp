#include "gpu/nvidia/cuda_driver.h"

#include <optional>

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

std::string DescribeResult(const cuda::CudaDriverApi& api, cuda::CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName != nullptr && api.cuGetErrorName(result, &name) != cuda::kSuccess) name = nullptr;
  if (api.cuGetErrorString != nullptr && api.cuGetErrorString(result, &text) != cuda::kSuccess) text = nullptr;
  if (name == nullptr) name = KnownResultName(result);
  std::string out = name != nullptr ? fmt::format("{} ({})", name, result) : fmt::format("CUresult {}", result);
  if (text != nullptr) out += std::string(": ") + text;
  return out;
}

std::string CudaDriver::Describe(cuda::CUresult result) const { return DescribeResult(api_, result); }

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
  cuda::CUresult init = cuda::kSuccess;  // of the library taken
  std::string init_error;
  std::optional<DriverProblem> refused;  // the first real libcuda refused: the verdict if none works
  bool stub_seen = false;
  // tests/sim's libcuda exports this one extra function; NVIDIA's never does.
  auto is_simulated = [](const DynamicLibrary& library) { return library.Symbol("labcheck_sim_machine") != nullptr; };
  LibrarySearchResult found = SearchLibrary(spec, paths, [&](const DynamicLibrary& library) -> std::optional<Text> {
    cuda::CudaDriverApi api;
    Status bound = BindSymbols(library, CudaDriverSymbols(api));
    if (!bound.ok()) {
      if (!refused) {
        refused = DriverTooOld(bound.message());
        refused->library_file = library.file();
        refused->simulated = is_simulated(library);
      }
      return T("нет нужных функций (" + bound.message() + "), пропущена",
               "lacks functions we need (" + bound.message() + "), skipped");
    }
    const cuda::CUresult result = api.cuInit(0);
    const std::string error = "cuInit: " + DescribeResult(api, result);
    if (InitResultRefusesLibrary(result)) {
      if (result == cuda::kErrorStubLibrary) stub_seen = true;
      else if (!refused) {
        refused = ClassifyInitResult(result, error);
        refused->library_file = library.file();
        refused->simulated = is_simulated(library);
      }
      return RefusedLibraryReason(result, DescribeResult(api, result));
    }
    // Taken: the table is filled from the library that stays open, and cuInit is not run again.
    init = result;
    init_error = error;
    driver->api_ = api;
    return std::nullopt;
  });
  if (!found.loaded) {
    const std::string attempts = found.error.message();
    *problem = refused ? *refused : stub_seen ? ClassifyInitResult(cuda::kErrorStubLibrary, "") : NoDriverFound(attempts);
    problem->error = attempts;
    return nullptr;
  }
  driver->loaded_ = std::move(*found.loaded);
  *problem = ClassifyInitResult(init, init_error);
  problem->library_file = driver->loaded_.file;
  problem->simulated = is_simulated(driver->loaded_.library);
  if (problem->verdict != DriverVerdict::Ready) {
    problem->error = driver->loaded_.file + ": " + init_error;
    return nullptr;
  }
  driver->api_.cuDriverGetVersion(&driver->version_);
  return driver;
}

}  // namespace labcheck::gpu

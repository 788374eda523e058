// The simulated libcuda.so.1 loaded into the test's own process with dlopen (one H200 profile) and
// the driver calls the kernel tests make, bound by their exported names: for tests that call the
// simulated driver directly, as a kernel's author would (sim_kernels_test.cpp, memtest_sim_test.cpp),
// rather than through lab_check's loader. Call Open() under ASSERT_NO_FATAL_FAILURE.
#pragma once
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace labcheck::sim {

using CUresult = int;

struct RawSimCuda {
  void* library = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(void**, int) = nullptr;
  CUresult (*cuCtxSetCurrent)(void*) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(unsigned long long*, size_t) = nullptr;
  CUresult (*cuMemsetD32)(unsigned long long, unsigned, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, unsigned long long, size_t) = nullptr;
  CUresult (*cuMemcpyHtoD)(unsigned long long, const void*, size_t) = nullptr;
  CUresult (*cuStreamCreate)(void**, unsigned) = nullptr;
  CUresult (*cuStreamSynchronize)(void*) = nullptr;
  CUresult (*cuEventCreate)(void**, unsigned) = nullptr;
  CUresult (*cuEventRecord)(void*, void*) = nullptr;
  CUresult (*cuEventSynchronize)(void*) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, void*, void*) = nullptr;
  CUresult (*cuModuleLoadDataEx)(void**, const void*, unsigned, int*, void**) = nullptr;
  CUresult (*cuModuleGetFunction)(void**, void*, const char*) = nullptr;
  CUresult (*cuModuleUnload)(void*) = nullptr;
  CUresult (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                             void**) = nullptr;
  void* context = nullptr;
  void* stream = nullptr;

  template <class F>
  void Bind(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(library, name));
    ASSERT_NE(f, nullptr) << name;
  }
  // Loads the library, binds every call above, and makes card 0's context current with a
  // non-blocking stream.
  void OpenDriver() {
    const std::string machine = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/single-h200.json";
    setenv("LABCHECK_SIM_MACHINE", machine.c_str(), 1);
    const std::string path = (std::filesystem::path(LAB_CHECK_BINARY).parent_path() / "sim-nvidia/libcuda.so.1").string();
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    Bind(cuInit, "cuInit");
    Bind(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    Bind(cuCtxSetCurrent, "cuCtxSetCurrent");
    Bind(cuCtxSynchronize, "cuCtxSynchronize");
    Bind(cuMemAlloc, "cuMemAlloc_v2");
    Bind(cuMemsetD32, "cuMemsetD32_v2");
    Bind(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    Bind(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    Bind(cuStreamCreate, "cuStreamCreate");
    Bind(cuStreamSynchronize, "cuStreamSynchronize");
    Bind(cuEventCreate, "cuEventCreate");
    Bind(cuEventRecord, "cuEventRecord");
    Bind(cuEventSynchronize, "cuEventSynchronize");
    Bind(cuEventElapsedTime, "cuEventElapsedTime_v2");
    Bind(cuModuleLoadDataEx, "cuModuleLoadDataEx");
    Bind(cuModuleGetFunction, "cuModuleGetFunction");
    Bind(cuModuleUnload, "cuModuleUnload");
    Bind(cuLaunchKernel, "cuLaunchKernel");
    ASSERT_EQ(cuInit(0), 0);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&context, 0), 0);
    ASSERT_EQ(cuCtxSetCurrent(context), 0);
    ASSERT_EQ(cuStreamCreate(&stream, 1), 0);
  }
};

}  // namespace labcheck::sim

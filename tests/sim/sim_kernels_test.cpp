// The simulated driver's module and launch calls (lib/cuda/cuda_module.cpp), called directly: they
// must refuse what NVIDIA's driver refuses, or a broken kernel or launch would pass the tests and
// fail on the first real GPU. Loads build/sim-nvidia/libcuda.so.1 into this process with one
// H200 profile.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "gpu/bench/copy_kernels_ptx.h"
#include "raw_sim_cuda.h"

namespace labcheck::sim {
namespace {

struct SimCuda : RawSimCuda {
  void Open() { OpenDriver(); }
  // Loads `ptx`; the JIT log into `log`.
  CUresult Load(const std::string& ptx, void** module, std::string* log = nullptr) {
    char buffer[1024] = {};
    int options[] = {5, 6};  // CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
    void* values[] = {buffer, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof buffer))};
    const CUresult r = cuModuleLoadDataEx(module, ptx.c_str(), 2, options, values);
    if (log != nullptr) *log = buffer;
    return r;
  }
  unsigned long long Buffer(size_t bytes, unsigned word) {
    unsigned long long p = 0;
    EXPECT_EQ(cuMemAlloc(&p, bytes), 0);
    EXPECT_EQ(cuMemsetD32(p, word, bytes / 4), 0);
    return p;
  }
  unsigned Word(unsigned long long p, size_t offset) {
    unsigned word = 0;
    EXPECT_EQ(cuStreamSynchronize(stream), 0);
    EXPECT_EQ(cuMemcpyDtoH(&word, p + offset, 4), 0);
    return word;
  }
};

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(SimKernels, TheJitRefusesWhatIsNotGoodPtxForThisDriverAndGpu) {
  SimCuda cuda;
  ASSERT_NO_FATAL_FAILURE(cuda.Open());
  const std::string ptx = gpu::kCopyKernelsPtx;
  void* module = nullptr;
  std::string log;
  EXPECT_EQ(cuda.Load("just some text", &module), 200);  // CUDA_ERROR_INVALID_IMAGE: not PTX at all
  EXPECT_EQ(cuda.Load(Replace(ptx, ".version 4.1", ".version 9.9"), &module, &log), 222)  // newer than CUDA 13.0
      << log;                                                                                 // (UNSUPPORTED_PTX_VERSION)
  EXPECT_EQ(cuda.Load(Replace(ptx, ".target sm_52", ".target sm_100"), &module, &log), 218) << log;  // H200 is sm_90
  EXPECT_EQ(cuda.Load(Replace(ptx, "bra.uni COPY_ONE;", "bra.uni COPY_ONE"), &module, &log), 218);  // INVALID_PTX
  EXPECT_NE(log.find("missing ';'"), std::string::npos) << log;
  EXPECT_EQ(cuda.Load(Replace(ptx, "COPY_DONE:\n  ret;\n}", "COPY_DONE:\n  ret;\n"), &module, &log), 218) << log;

  ASSERT_EQ(cuda.Load(ptx, &module, &log), 0) << log;
  void* function = nullptr;
  EXPECT_EQ(cuda.cuModuleGetFunction(&function, module, "labcheck_no_such_kernel"), 500);  // CUDA_ERROR_NOT_FOUND
  EXPECT_EQ(cuda.cuModuleGetFunction(&function, module, gpu::kCopyKernelName), 0);
  EXPECT_EQ(cuda.cuModuleUnload(module), 0);
  EXPECT_EQ(cuda.cuModuleUnload(module), 1);  // already unloaded: CUDA_ERROR_INVALID_VALUE
}

TEST(SimKernels, LaunchesAreCheckedAsTheDriverChecksThemAndReallyRun) {
  SimCuda cuda;
  ASSERT_NO_FATAL_FAILURE(cuda.Open());
  void* module = nullptr;
  ASSERT_EQ(cuda.Load(gpu::kCopyKernelsPtx, &module), 0);
  void *copy = nullptr, *triad = nullptr;
  ASSERT_EQ(cuda.cuModuleGetFunction(&copy, module, gpu::kCopyKernelName), 0);
  ASSERT_EQ(cuda.cuModuleGetFunction(&triad, module, gpu::kTriadKernelName), 0);
  constexpr size_t kBytes = 64u << 20;
  unsigned long long dst = cuda.Buffer(kBytes, 0), src = cuda.Buffer(kBytes, 0x3F8CCCCD);
  unsigned long long n = kBytes / 16;
  void* params[] = {&dst, &src, &n};
  void* s = cuda.stream;
  const unsigned full = 132 * 8;  // one full wave on the H200 profile: 132 SMs × 2048 threads
  EXPECT_EQ(cuda.cuLaunchKernel(copy, full, 1, 1, 2048, 1, 1, 0, s, params, nullptr), 1);   // > 1024 threads
  EXPECT_EQ(cuda.cuLaunchKernel(copy, full, 1, 1, 512, 1, 1, 0, s, params, nullptr), 701);  // > .maxntid 256
  EXPECT_EQ(cuda.cuLaunchKernel(copy, 0, 1, 1, 256, 1, 1, 0, s, params, nullptr), 1);       // empty grid
  EXPECT_EQ(cuda.cuLaunchKernel(copy, full, 1, 1, 256, 1, 1, 64 << 10, s, params, nullptr), 1);  // 64 KiB shared
  EXPECT_EQ(cuda.cuLaunchKernel(copy, full, 1, 1, 256, 1, 1, 0, s, params, params), 1);    // params and extra
  EXPECT_EQ(cuda.cuLaunchKernel(copy, full, 1, 1, 256, 1, 1, 0, s, nullptr, nullptr), 1);  // no params
  EXPECT_EQ(cuda.cuLaunchKernel(&n, full, 1, 1, 256, 1, 1, 0, s, params, nullptr), 400);   // not a function
  unsigned long long wild = dst + kBytes;  // past the allocation
  void* wild_params[] = {&wild, &src, &n};
  EXPECT_EQ(cuda.cuLaunchKernel(copy, full, 1, 1, 256, 1, 1, 0, s, wild_params, nullptr), 700);

  // It copies, and one block alone (one SM of 132, an eighth of its threads) takes far longer.
  void *start = nullptr, *stop = nullptr;
  ASSERT_EQ(cuda.cuEventCreate(&start, 0), 0);
  ASSERT_EQ(cuda.cuEventCreate(&stop, 0), 0);
  auto timed = [&](unsigned blocks) {
    EXPECT_EQ(cuda.cuEventRecord(start, s), 0);
    EXPECT_EQ(cuda.cuLaunchKernel(copy, blocks, 1, 1, 256, 1, 1, 0, s, params, nullptr), 0);
    EXPECT_EQ(cuda.cuEventRecord(stop, s), 0);
    EXPECT_EQ(cuda.cuEventSynchronize(stop), 0);
    float ms = 0;
    EXPECT_EQ(cuda.cuEventElapsedTime(&ms, start, stop), 0);
    return ms;
  };
  const float wave = timed(full);
  EXPECT_NEAR(wave, 2.0 * kBytes / 4300e9 * 1e3 + 0.005, 0.05 * wave);  // perf/kernel_copy_gbps 4300
  EXPECT_EQ(cuda.Word(dst, 0), 0x3F8CCCCDu);
  EXPECT_EQ(cuda.Word(dst, kBytes - 4), 0x3F8CCCCDu);
  EXPECT_GT(timed(1) / wave, 100);

  // a = b + 0.5 · c with b = 1, c = 2: 2.0f everywhere.
  unsigned long long a = cuda.Buffer(kBytes, 0), b = cuda.Buffer(kBytes, 0x3F800000), c = cuda.Buffer(kBytes, 0x40000000);
  float scalar = 0.5f;
  void* triad_params[] = {&a, &b, &c, &n, &scalar};
  ASSERT_EQ(cuda.cuLaunchKernel(triad, full, 1, 1, 256, 1, 1, 0, s, triad_params, nullptr), 0);
  EXPECT_EQ(cuda.Word(a, 12345 * 4), 0x40000000u);
  EXPECT_EQ(cuda.cuModuleUnload(module), 0);
}

}  // namespace
}  // namespace labcheck::sim

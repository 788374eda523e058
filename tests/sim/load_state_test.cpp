// When the simulated card counts as under load (core/timeline.h), read through NVML the way
// lab_check's sampler reads it: while a host copy's memmove runs, that memmove is the card's DMA,
// so the PCIe link reads its load generation for the whole call, however long the host takes;
// after it, with no linger, the link is idle again. A sim that marked the card busy only from the
// end of the call until its modelled end read "idle" all through a slow memmove, and gpu.health
// then flagged a healthy link as downtrained on a loaded CI machine. Loads build/sim-nvidia's
// libcuda and NVML into this process (they share libnvsim-core's state).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace labcheck::sim {
namespace {

template <class F>
F Bind(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

TEST(SimLoadState, AHostCopyIsLoadForItsWholeCallAndIdleAfter) {
  const std::string machine = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/copy-outlasts-its-model.json";
  setenv("LABCHECK_SIM_MACHINE", machine.c_str(), 1);
  const std::filesystem::path dir = std::filesystem::path(LAB_CHECK_BINARY).parent_path() / "sim-nvidia";
  void* cuda = dlopen((dir / "libcuda.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
  void* nvml = dlopen((dir / "libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(cuda, nullptr) << dlerror();
  ASSERT_NE(nvml, nullptr) << dlerror();

  auto cuInit = Bind<int (*)(unsigned)>(cuda, "cuInit");
  auto cuDevicePrimaryCtxRetain = Bind<int (*)(void**, int)>(cuda, "cuDevicePrimaryCtxRetain");
  auto cuCtxSetCurrent = Bind<int (*)(void*)>(cuda, "cuCtxSetCurrent");
  auto cuMemAlloc = Bind<int (*)(unsigned long long*, size_t)>(cuda, "cuMemAlloc_v2");
  auto cuMemcpyHtoD = Bind<int (*)(unsigned long long, const void*, size_t)>(cuda, "cuMemcpyHtoD_v2");
  auto cuCtxSynchronize = Bind<int (*)()>(cuda, "cuCtxSynchronize");
  auto nvmlInit = Bind<int (*)()>(nvml, "nvmlInit_v2");
  auto nvmlDeviceGetHandleByIndex = Bind<int (*)(unsigned, void**)>(nvml, "nvmlDeviceGetHandleByIndex_v2");
  auto nvmlDeviceGetCurrPcieLinkGeneration = Bind<int (*)(void*, unsigned*)>(nvml, "nvmlDeviceGetCurrPcieLinkGeneration");
  ASSERT_TRUE(cuInit && cuDevicePrimaryCtxRetain && cuCtxSetCurrent && cuMemAlloc && cuMemcpyHtoD && cuCtxSynchronize &&
              nvmlInit && nvmlDeviceGetHandleByIndex && nvmlDeviceGetCurrPcieLinkGeneration);

  ASSERT_EQ(cuInit(0), 0);
  void* context = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&context, 0), 0);
  ASSERT_EQ(cuCtxSetCurrent(context), 0);
  ASSERT_EQ(nvmlInit(), 0);
  void* device = nullptr;
  ASSERT_EQ(nvmlDeviceGetHandleByIndex(0, &device), 0);
  auto gen = [&] {
    unsigned value = 0;
    EXPECT_EQ(nvmlDeviceGetCurrPcieLinkGeneration(device, &value), 0);
    return value;
  };
  ASSERT_EQ(gen(), 1u) << "course-4x4080.json: the link idles at Gen1";

  // 256 MiB: a memmove of tens of milliseconds against a modelled quarter of a microsecond.
  const size_t bytes = 256u << 20;
  unsigned long long dst = 0;
  ASSERT_EQ(cuMemAlloc(&dst, bytes), 0);
  std::vector<char> src(bytes, 7);
  using Clock = std::chrono::steady_clock;
  struct Reading {
    unsigned gen;
    Clock::time_point began, done;
  };
  std::atomic<bool> copying{true};
  std::atomic<bool> entering{false};
  std::vector<Reading> readings;
  std::thread reader([&] {
    // Readings start once the copy has surely entered the driver.
    while (!entering.load()) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    while (copying.load()) {
      const Clock::time_point began = Clock::now();
      const unsigned g = gen();
      readings.push_back({g, began, Clock::now()});
    }
  });
  entering = true;
  const Clock::time_point started = Clock::now();
  const int copied = cuMemcpyHtoD(dst, src.data(), bytes);
  const Clock::time_point returned = Clock::now();
  copying = false;
  reader.join();
  ASSERT_EQ(copied, 0);
  ASSERT_EQ(cuCtxSynchronize(), 0);  // the pageable copy's DMA lands with the legacy stream

  // Only readings that began after the call started and ended before it returned were taken
  // inside it. The call enters the driver a little after `started` (more on a loaded machine that
  // preempts this thread there), so 90 % of them must see Gen4.
  size_t inside = 0, loaded = 0;
  for (const Reading& r : readings) {
    if (r.began < started || r.done >= returned) continue;
    ++inside;
    loaded += r.gen == 4u;
  }
  const double call_ms = std::chrono::duration<double, std::milli>(returned - started).count();
  ASSERT_GE(inside, 1u) << "the copy took " << call_ms << " ms: too short to read inside it";
  EXPECT_GE(loaded, std::max<size_t>(1, inside * 9 / 10))
      << loaded << " of " << inside << " readings inside a " << call_ms << " ms copy saw Gen4";
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(gen(), 1u) << "with no linger the link idles once the work is done";
}

}  // namespace
}  // namespace labcheck::sim

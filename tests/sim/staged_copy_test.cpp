// Pageable copies of equal bytes share one staged copy in the sim (core/device_memory.h), as the
// same matmul inputs go to every card. Sharing is the sim's business only: each allocation must
// still behave as its own memory. A later copy of changed bytes, a partial overwrite, a memset
// or a free of one of them changes nothing in the others. Loads build/sim-nvidia's libcuda into
// this process, as load_state_test.cpp does.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace labcheck::sim {
namespace {

template <class F>
F Resolve(void* library, const char* name) {
  return reinterpret_cast<F>(dlsym(library, name));
}

using DevicePointer = unsigned long long;

struct StagedDriver {
  int (*cuInit)(unsigned);
  int (*cuDevicePrimaryCtxRetain)(void**, int);
  int (*cuCtxSetCurrent)(void*);
  int (*cuCtxSynchronize)();
  int (*cuMemAlloc)(DevicePointer*, size_t);
  int (*cuMemFree)(DevicePointer);
  int (*cuMemcpyHtoD)(DevicePointer, const void*, size_t);
  int (*cuMemcpyDtoH)(void*, DevicePointer, size_t);
  int (*cuMemsetD32)(DevicePointer, unsigned, size_t);
  int (*cuMemHostAlloc)(void**, size_t, unsigned);
  int (*cuMemFreeHost)(void*);
};

StagedDriver LoadStagedDriver() {
  const std::string machine = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/course-4x4080-unpaced.json";
  setenv("LABCHECK_SIM_MACHINE", machine.c_str(), 1);
  const std::filesystem::path dir = std::filesystem::path(LAB_CHECK_BINARY).parent_path() / "sim-nvidia";
  void* cuda = dlopen((dir / "libcuda.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(cuda, nullptr) << dlerror();
  if (cuda == nullptr) return {};
  return {Resolve<decltype(StagedDriver::cuInit)>(cuda, "cuInit"),
          Resolve<decltype(StagedDriver::cuDevicePrimaryCtxRetain)>(cuda, "cuDevicePrimaryCtxRetain"),
          Resolve<decltype(StagedDriver::cuCtxSetCurrent)>(cuda, "cuCtxSetCurrent"),
          Resolve<decltype(StagedDriver::cuCtxSynchronize)>(cuda, "cuCtxSynchronize"),
          Resolve<decltype(StagedDriver::cuMemAlloc)>(cuda, "cuMemAlloc_v2"),
          Resolve<decltype(StagedDriver::cuMemFree)>(cuda, "cuMemFree_v2"),
          Resolve<decltype(StagedDriver::cuMemcpyHtoD)>(cuda, "cuMemcpyHtoD_v2"),
          Resolve<decltype(StagedDriver::cuMemcpyDtoH)>(cuda, "cuMemcpyDtoH_v2"),
          Resolve<decltype(StagedDriver::cuMemsetD32)>(cuda, "cuMemsetD32_v2"),
          Resolve<decltype(StagedDriver::cuMemHostAlloc)>(cuda, "cuMemHostAlloc"),
          Resolve<decltype(StagedDriver::cuMemFreeHost)>(cuda, "cuMemFreeHost")};
}

// Pageable (malloc) or pinned (cuMemHostAlloc) host memory: the sim stages both from 1 MiB up.
class SimStagedCopies : public testing::TestWithParam<bool> {};

TEST_P(SimStagedCopies, EqualUploadsStayIndependentAllocations) {
  const StagedDriver cu = LoadStagedDriver();
  ASSERT_TRUE(cu.cuInit && cu.cuDevicePrimaryCtxRetain && cu.cuCtxSetCurrent && cu.cuCtxSynchronize && cu.cuMemAlloc &&
              cu.cuMemFree && cu.cuMemcpyHtoD && cu.cuMemcpyDtoH && cu.cuMemsetD32 && cu.cuMemHostAlloc && cu.cuMemFreeHost);
  ASSERT_EQ(cu.cuInit(0), 0);
  void* context = nullptr;
  ASSERT_EQ(cu.cuDevicePrimaryCtxRetain(&context, 0), 0);
  ASSERT_EQ(cu.cuCtxSetCurrent(context), 0);

  // Larger than a huge page and not a whole number of pages, so both the shared pages and a tail
  // are covered.
  const size_t bytes = (4u << 20) + 12;
  std::vector<unsigned char> pageable(bytes);
  unsigned char* host = pageable.data();
  if (GetParam()) {
    void* pinned = nullptr;
    ASSERT_EQ(cu.cuMemHostAlloc(&pinned, bytes, 0), 0);
    host = static_cast<unsigned char*>(pinned);
  }
  for (size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(i * 7 + 3);
  const std::vector<unsigned char> first(host, host + bytes);
  DevicePointer a = 0, b = 0, c = 0;
  ASSERT_EQ(cu.cuMemAlloc(&a, bytes), 0);
  ASSERT_EQ(cu.cuMemAlloc(&b, bytes), 0);
  ASSERT_EQ(cu.cuMemAlloc(&c, bytes), 0);
  ASSERT_EQ(cu.cuMemcpyHtoD(a, host, bytes), 0);
  ASSERT_EQ(cu.cuMemcpyHtoD(b, host, bytes), 0);  // equal bytes: the staged copy is shared
  host[bytes / 2] ^= 0xff;  // one byte differs from what a and b got
  const std::vector<unsigned char> second(host, host + bytes);
  ASSERT_EQ(cu.cuMemcpyHtoD(c, host, bytes), 0);
  host[0] ^= 0xff;  // after the copy: c keeps what it was given
  ASSERT_EQ(cu.cuCtxSynchronize(), 0);  // the pageable copies land with the legacy stream

  auto read = [&](DevicePointer from) {
    std::vector<unsigned char> out(bytes);
    EXPECT_EQ(cu.cuMemcpyDtoH(out.data(), from, bytes), 0);
    return out;
  };
  EXPECT_EQ(read(a), first);
  EXPECT_EQ(read(b), first);
  EXPECT_EQ(read(c), second) << "a copy of changed bytes took an earlier staged copy, or saw a later change";

  // Part of a overwritten, part of b set: each change stays in its own allocation.
  const unsigned char patch[5] = {1, 2, 3, 4, 5};
  ASSERT_EQ(cu.cuMemcpyHtoD(a + 1000, patch, sizeof patch), 0);
  ASSERT_EQ(cu.cuMemsetD32(b + 4096, 0xdeadbeefu, 16), 0);
  ASSERT_EQ(cu.cuCtxSynchronize(), 0);
  std::vector<unsigned char> expected_a = first, expected_b = first;
  for (size_t i = 0; i < sizeof patch; ++i) expected_a[1000 + i] = patch[i];
  for (size_t i = 0; i < 16 * 4; ++i) expected_b[4096 + i] = static_cast<unsigned char>(0xdeadbeefu >> (8 * (i % 4)));
  EXPECT_EQ(read(a), expected_a);
  EXPECT_EQ(read(b), expected_b);

  // Freeing one leaves the other's bytes, and a fresh upload of the first bytes is right too.
  ASSERT_EQ(cu.cuMemFree(a), 0);
  EXPECT_EQ(read(b), expected_b);
  DevicePointer d = 0;
  ASSERT_EQ(cu.cuMemAlloc(&d, bytes), 0);
  std::copy(first.begin(), first.end(), host);
  ASSERT_EQ(cu.cuMemcpyHtoD(d, host, bytes), 0);
  ASSERT_EQ(cu.cuCtxSynchronize(), 0);
  EXPECT_EQ(read(d), first);
  EXPECT_EQ(read(c), second);
  for (DevicePointer p : {b, c, d}) EXPECT_EQ(cu.cuMemFree(p), 0);
  if (GetParam()) {
    EXPECT_EQ(cu.cuMemFreeHost(host), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(HostMemory, SimStagedCopies, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) { return info.param ? "Pinned" : "Pageable"; });

}  // namespace
}  // namespace labcheck::sim

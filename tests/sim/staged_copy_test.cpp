// Pageable copies of equal bytes share one staged copy in the sim (core/device_memory.h), as the
// same matmul inputs go to every card. Sharing is the sim's business only: each allocation must
// still behave as its own memory. A later copy of changed bytes, a partial overwrite, a memset
// or a free of one of them changes nothing in the others. Through our own loader, as
// nccl_ranks_test.cpp does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpu/nvidia/cuda_driver.h"
#include "scenario_support.h"

namespace labcheck::sim {
namespace {

using gpu::cuda::CUdeviceptr;

// Pageable (malloc) or pinned (cuMemHostAlloc) host memory: the sim stages both from 1 MiB up.
class SimStagedCopies : public testing::TestWithParam<bool> {};

TEST_P(SimStagedCopies, EqualUploadsStayIndependentAllocations) {
  const std::string machine = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/course-4x4080-unpaced.json";
  setenv("LABCHECK_SIM_MACHINE", machine.c_str(), 1);
  gpu::DriverProblem problem;
  std::unique_ptr<gpu::CudaDriver> driver = gpu::CudaDriver::Load(SimPaths(), &problem);
  ASSERT_TRUE(driver) << "the simulated driver did not load";
  const gpu::cuda::CudaDriverApi& cu = driver->api();
  gpu::cuda::CUcontext context = nullptr;
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
  CUdeviceptr a = 0, b = 0, c = 0;
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

  auto read = [&](CUdeviceptr from) {
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
  CUdeviceptr d = 0;
  ASSERT_EQ(cu.cuMemAlloc(&d, bytes), 0);
  std::copy(first.begin(), first.end(), host);
  ASSERT_EQ(cu.cuMemcpyHtoD(d, host, bytes), 0);
  ASSERT_EQ(cu.cuCtxSynchronize(), 0);
  EXPECT_EQ(read(d), first);
  EXPECT_EQ(read(c), second);
  for (CUdeviceptr p : {b, c, d}) EXPECT_EQ(cu.cuMemFree(p), 0);
  if (GetParam()) {
    EXPECT_EQ(cu.cuMemFreeHost(host), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(HostMemory, SimStagedCopies, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) { return info.param ? "Pinned" : "Pageable"; });

}  // namespace
}  // namespace labcheck::sim

// Two ways the sim moves fewer bytes than the program asks for (core/device_memory.h), each of
// which must leave every byte the program can see as eager copying would:
// - a write into part of recorded work (a memset, a device copy) cuts the record to the pieces
//   outside the write instead of computing all of it;
// - async copies from and to pinned memory move their bytes when the program could first tell
//   (a wait, a query, any other access to device memory, a free), and a repeat of one still
//   queued moves them once.
// Through our own loader, as staged_copy_test.cpp does.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpu/nvidia/cuda_driver.h"
#include "scenario_support.h"

namespace labcheck::sim {
namespace {

using gpu::cuda::CUdeviceptr;
using Bytes = std::vector<unsigned char>;

// Larger than a huge page and not a whole number of words, so pieces of recorded work start and
// end at every alignment.
constexpr size_t kBytes = (4u << 20) + 13;

class SimRecordedWork : public testing::Test {
 protected:
  void SetUp() override {
    const std::string machine = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/course-4x4080-unpaced.json";
    setenv("LABCHECK_SIM_MACHINE", machine.c_str(), 1);
    gpu::DriverProblem problem;
    driver_ = gpu::CudaDriver::Load(SimPaths(), &problem);
    ASSERT_TRUE(driver_) << "the simulated driver did not load";
    gpu::cuda::CUcontext context = nullptr;
    ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&context, 0), 0);
    ASSERT_EQ(cu().cuCtxSetCurrent(context), 0);
  }
  const gpu::cuda::CudaDriverApi& cu() const { return driver_->api(); }
  CUdeviceptr Alloc(size_t bytes = kBytes) {
    CUdeviceptr p = 0;
    EXPECT_EQ(cu().cuMemAlloc(&p, bytes), 0);
    return p;
  }
  Bytes Read(CUdeviceptr from, size_t bytes = kBytes) {
    Bytes out(bytes);
    EXPECT_EQ(cu().cuMemcpyDtoH(out.data(), from, bytes), 0);
    return out;
  }
  static Bytes Pattern(size_t bytes, unsigned seed) {
    Bytes b(bytes);
    for (size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>(i * seed + seed / 3);
    return b;
  }
  // What cuMemsetD32(value) leaves in bytes [first, first + count) of a buffer.
  static void Fill(Bytes& b, size_t first, size_t count, uint32_t value) {
    for (size_t i = first; i < first + count; ++i) b[i] = static_cast<unsigned char>(value >> (8 * (i % 4)));
  }

  std::unique_ptr<gpu::CudaDriver> driver_;
};

// Equal, or where the first byte differs (a whole buffer's dump says nothing).
testing::AssertionResult Same(const Bytes& got, const Bytes& want) {
  if (got.size() != want.size()) return testing::AssertionFailure() << got.size() << " bytes, not " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return testing::AssertionFailure() << "byte " << i << " is " << int(got[i]) << ", not " << int(want[i]);
  return testing::AssertionSuccess();
}

TEST_F(SimRecordedWork, AWriteIntoPartOfRecordedWorkLeavesTheRestAsItWas) {
  const uint32_t value = 0x11223344u;
  CUdeviceptr source = Alloc(), copy = Alloc();
  ASSERT_EQ(cu().cuMemsetD32(source, value, kBytes / 4), 0);  // recorded: the last byte stays 0
  Bytes expected_source(kBytes, 0);
  Fill(expected_source, 0, kBytes / 4 * 4, value);
  // Small writes at the start, at an odd offset in the middle and across the fill's end.
  const Bytes patch = Pattern(16, 5);
  for (size_t at : {size_t{0}, size_t{1001}, kBytes - 9}) {
    const size_t n = std::min(patch.size(), kBytes - at);
    ASSERT_EQ(cu().cuMemcpyHtoD(source + at, patch.data(), n), 0);
    std::memcpy(expected_source.data() + at, patch.data(), n);
  }
  // (Pageable uploads land with the legacy stream; the sim does not order a device copy queued
  // there after them: tests/sim/README.md, "Not modelled".)
  ASSERT_EQ(cu().cuCtxSynchronize(), 0);
  // A recorded device copy of it, then a memset into part of the copy.
  ASSERT_EQ(cu().cuMemcpyDtoDAsync(copy, source, kBytes, nullptr), 0);
  ASSERT_EQ(cu().cuMemsetD32(copy + 4096, 0xdeadbeefu, 3), 0);
  ASSERT_EQ(cu().cuCtxSynchronize(), 0);
  Bytes expected_copy = expected_source;
  for (size_t i = 0; i < 12; ++i) expected_copy[4096 + i] = static_cast<unsigned char>(0xdeadbeefu >> (8 * (i % 4)));
  EXPECT_TRUE(Same(Read(source), expected_source));
  EXPECT_TRUE(Same(Read(copy), expected_copy));
  // Reads that start inside a piece, at an odd offset.
  EXPECT_TRUE(Same(Read(copy + 3, 100), Bytes(expected_copy.begin() + 3, expected_copy.begin() + 103)));
  // A later write to the source leaves the copy as it was.
  ASSERT_EQ(cu().cuMemsetD32(source + 2048, 0u, 1024), 0);
  ASSERT_EQ(cu().cuCtxSynchronize(), 0);
  EXPECT_TRUE(Same(Read(copy), expected_copy));
  for (CUdeviceptr p : {source, copy}) EXPECT_EQ(cu().cuMemFree(p), 0);
}

TEST_F(SimRecordedWork, PinnedAsyncCopiesMoveWhatTheProgramMaySee) {
  void* pinned = nullptr;
  ASSERT_EQ(cu().cuMemHostAlloc(&pinned, kBytes, 0), 0);
  auto* host = static_cast<unsigned char*>(pinned);
  gpu::cuda::CUstream stream = nullptr;
  ASSERT_EQ(cu().cuStreamCreate(&stream, 0x1), 0);  // non-blocking, as the copy benchmarks' streams
  CUdeviceptr device = Alloc(), other = Alloc(), third = Alloc();

  // Repeats of one upload, seen done: the device holds the bytes sent, not what the host wrote after.
  const Bytes first = Pattern(kBytes, 7);
  std::memcpy(host, first.data(), kBytes);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(cu().cuMemcpyHtoDAsync(device, host, kBytes, stream), 0);
  ASSERT_EQ(cu().cuStreamSynchronize(stream), 0);
  std::memset(host, 0xA5, kBytes);
  EXPECT_TRUE(Same(Read(device), first));

  // An upload followed on its stream by a device copy of the same bytes: the copy gets them.
  const Bytes second = Pattern(kBytes, 11);
  std::memcpy(host, second.data(), kBytes);
  ASSERT_EQ(cu().cuMemcpyHtoDAsync(device, host, kBytes, stream), 0);
  ASSERT_EQ(cu().cuMemcpyDtoDAsync(other, device, kBytes, stream), 0);
  ASSERT_EQ(cu().cuStreamSynchronize(stream), 0);
  std::memset(host, 0x5A, kBytes);
  EXPECT_TRUE(Same(Read(other), second));

  // A download seen done through an event: the host holds the device's bytes.
  gpu::cuda::CUevent done = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&done, 0), 0);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(cu().cuMemcpyDtoHAsync(host, other, kBytes, stream), 0);
  ASSERT_EQ(cu().cuEventRecord(done, stream), 0);
  ASSERT_EQ(cu().cuEventSynchronize(done), 0);
  EXPECT_TRUE(Same(Bytes(host, host + kBytes), second));

  // A download into the host buffer, then an upload from it on the same stream: in that order.
  ASSERT_EQ(cu().cuMemcpyDtoHAsync(host, device, kBytes, stream), 0);  // device holds `second`
  ASSERT_EQ(cu().cuMemcpyHtoDAsync(third, host, kBytes, stream), 0);
  ASSERT_EQ(cu().cuStreamSynchronize(stream), 0);
  EXPECT_TRUE(Same(Read(third), second));

  // Freeing the host buffer with a download still queued: it lands first, then the pages go.
  ASSERT_EQ(cu().cuMemcpyDtoHAsync(host, device, kBytes, stream), 0);
  EXPECT_EQ(cu().cuMemFreeHost(pinned), 0);
  EXPECT_EQ(cu().cuEventDestroy(done), 0);
  EXPECT_EQ(cu().cuStreamDestroy(stream), 0);
  for (CUdeviceptr p : {device, other, third}) EXPECT_EQ(cu().cuMemFree(p), 0);
}

}  // namespace
}  // namespace labcheck::sim

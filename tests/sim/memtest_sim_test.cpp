// The simulated driver running the memory test's kernels (lib/cuda/cuda_memtest.cpp), called
// directly with lab_check's own PTX: what they write is what the product expects word for word,
// a check finds a flipped bit where it was flipped, and a grid that would leave memory untested is
// refused. Loads build/sim-nvidia/libcuda.so.1 into this process with one H200 profile (as
// sim_kernels_test.cpp does).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/pattern_memory.h"
#include "gpu/memtest/memtest_kernels_ptx.h"
#include "gpu/memtest/memtest_patterns.h"
#include "raw_sim_cuda.h"

namespace labcheck::sim {
namespace {

namespace mt = gpu::memtest;

struct MemtestCuda : RawSimCuda {
  void* fill = nullptr;
  void* check = nullptr;
  void* walk = nullptr;

  // The driver, then lab_check's memory-test module and its three kernels.
  void Open() {
    ASSERT_NO_FATAL_FAILURE(OpenDriver());
    void* module = nullptr;
    ASSERT_EQ(cuModuleLoadDataEx(&module, mt::MemtestKernelsPtx(), 0, nullptr, nullptr), 0);
    ASSERT_EQ(cuModuleGetFunction(&fill, module, mt::kFillKernelName), 0);
    ASSERT_EQ(cuModuleGetFunction(&check, module, mt::kCheckKernelName), 0);
    ASSERT_EQ(cuModuleGetFunction(&walk, module, mt::kWalkKernelName), 0);
  }
  unsigned long long Alloc(size_t bytes) {
    unsigned long long p = 0;
    EXPECT_EQ(cuMemAlloc(&p, bytes), 0);
    return p;
  }
  // One launch of fill (errors == 0) or check over [base, base + bytes).
  CUresult Run(unsigned long long base, unsigned long long bytes, const mt::Step& step, unsigned long long logical,
               unsigned long long errors, unsigned blocks, unsigned per_thread) {
    unsigned long long elements = bytes / 16, param = step.param, xor_mask = step.xor_mask;
    unsigned kind = static_cast<unsigned>(step.kind), invert = step.op == mt::Step::Op::CheckInvert ? 1 : 0;
    void* fill_params[] = {&base, &elements, &per_thread, &kind, &param, &xor_mask, &logical};
    void* check_params[] = {&base, &elements, &per_thread, &kind, &param, &xor_mask, &logical, &errors, &invert};
    const bool is_check = step.op != mt::Step::Op::Fill;
    return cuLaunchKernel(is_check ? check : fill, blocks, 1, 1, 256, 1, 1, 0, stream, is_check ? check_params : fill_params,
                          nullptr);
  }
  uint64_t Word(unsigned long long at) {
    uint64_t word = 0;
    EXPECT_EQ(cuStreamSynchronize(stream), 0);
    EXPECT_EQ(cuMemcpyDtoH(&word, at, 8), 0);
    return word;
  }
};

TEST(SimMemtestKernels, TheSimulatorsPatternsAreTheProductsWordForWord) {
  for (uint32_t kind = 0; kind <= 4; ++kind)
    for (uint64_t xor_mask : {uint64_t{0}, ~uint64_t{0}})
      for (uint64_t param : {uint64_t{0}, uint64_t{17}, (uint64_t{13} << 32) | 0xC0FFEE11u}) {
        const mt::Step step{mt::Step::Op::Fill, static_cast<mt::PatternKind>(kind), param, xor_mask};
        const nvsim::Pattern sim{kind, param, xor_mask, 0x7f0000100000, 0x40000000};
        for (uint64_t at = 0x7f0000100000; at < 0x7f0000100000 + 4096; at += 8)
          ASSERT_EQ(sim.Word(at), mt::ExpectedWord(step, at, 0x40000000 + (at - 0x7f0000100000)))
              << "kind " << kind << " param " << param << " at " << at;
      }
}

TEST(SimMemtestKernels, WhatTheFillWritesIsWhatTheProductExpectsAndAFlippedBitIsFoundWhereItWasFlipped) {
  MemtestCuda cuda;
  ASSERT_NO_FATAL_FAILURE(cuda.Open());
  const unsigned long long bytes = 64 << 20, base = cuda.Alloc(bytes), errors = cuda.Alloc(mt::kErrorBufferBytes);
  ASSERT_EQ(cuda.cuMemsetD32(errors, 0, mt::kErrorBufferBytes / 4), 0);
  const unsigned blocks = 132 * 8;
  const unsigned per_thread = static_cast<unsigned>((bytes / 16 + blocks * 256 - 1) / (blocks * 256));
  const mt::Step fill{mt::Step::Op::Fill, mt::PatternKind::RandomSequence, 1234, 0};
  ASSERT_EQ(cuda.Run(base, bytes, fill, 4096, 0, blocks, per_thread), 0);
  for (unsigned long long at : {base, base + 8, base + bytes / 2 + 24, base + bytes - 8})
    EXPECT_EQ(cuda.Word(at), mt::ExpectedWord(fill, at, 4096 + (at - base)));
  // The self-test's flip, through the driver: read the word, change bit 37, write it back.
  const unsigned long long flipped = base + (5 << 20) + 40;
  const uint64_t word = cuda.Word(flipped) ^ (uint64_t{1} << 37);
  ASSERT_EQ(cuda.cuMemcpyHtoD(flipped, &word, 8), 0);
  ASSERT_EQ(cuda.cuCtxSynchronize(), 0);
  const mt::Step check{mt::Step::Op::CheckInvert, mt::PatternKind::RandomSequence, 1234, 0};
  ASSERT_EQ(cuda.Run(base, bytes, check, 4096, errors, blocks, per_thread), 0);
  uint64_t count = 0, bit37 = 0, record[4] = {};
  ASSERT_EQ(cuda.cuStreamSynchronize(cuda.stream), 0);
  ASSERT_EQ(cuda.cuMemcpyDtoH(&count, errors + mt::kErrorCountOffset, 8), 0);
  ASSERT_EQ(cuda.cuMemcpyDtoH(&bit37, errors + mt::kHistogramOffset + 37 * 8, 8), 0);
  ASSERT_EQ(cuda.cuMemcpyDtoH(record, errors + mt::kRecordsOffset, sizeof record), 0);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(bit37, 1u);
  EXPECT_EQ(record[0], flipped);
  EXPECT_EQ(record[1] ^ record[2], uint64_t{1} << 37);
  // The check wrote the complement everywhere, the flipped word too.
  EXPECT_EQ(cuda.Word(flipped), ~mt::ExpectedWord(fill, flipped, 4096 + (flipped - base)));
}

TEST(SimMemtestKernels, AGridThatLeavesMemoryUntestedIsRefused) {
  MemtestCuda cuda;
  ASSERT_NO_FATAL_FAILURE(cuda.Open());
  const unsigned long long bytes = 16 << 20, base = cuda.Alloc(bytes);
  const mt::Step fill{mt::Step::Op::Fill, mt::PatternKind::Constant, 0, 0};
  // 8 blocks × 256 threads × 8 elements = 16384 of the 1 Mi elements: CUDA_ERROR_INVALID_VALUE.
  EXPECT_EQ(cuda.Run(base, bytes, fill, 0, 0, 8, 8), 1);
  EXPECT_EQ(cuda.Run(base, bytes, fill, 0, 0, 8, 512), 0);  // 8 × 256 × 512 = every element
}

}  // namespace
}  // namespace labcheck::sim

// The memory test's kernels as PTX text, loaded through the driver (bench/kernel_module.h) as the SM
// copy kernel is: the driver's JIT compiles them for the card, so no toolkit is needed. Same ISA
// floor as bench/copy_kernels_ptx.h (.version 4.1, .target sm_52, 256-thread blocks capped at 32
// registers, so GridForEverySm gives one full wave); tests/gpu/memtest_kernels_test.cpp assembles
// them with the toolkit's ptxas wherever it is installed.
//
// Three kernels:
//   fill   writes a pattern over a range of 16-byte elements;
//   check  reads the range back, compares every 8-byte word with the pattern and records each
//          word that differs into an error buffer (below), then optionally writes the complement
//          (the moving-inversions step: check P, write ~P, in one pass);
//   walk   one thread writes or checks the words at the power-of-two byte offsets of the tested
//          memory (cuda_memtest's "walking 1 bit" over the address lines).
//
// The fill and check kernels cover their range exactly: thread t of T handles elements
// t, t + T, …, t + (per_thread − 1)·T below `elements`, coalesced 16-byte loads and stores. The
// host picks per_thread = ceil(elements / T); a grid that covered less would leave memory
// untested without a word, so the simulator refuses such a launch (tests/sim/README.md).
#pragma once
#include <cstddef>
#include <cstdint>

namespace labcheck::gpu::memtest {

// The module's PTX, NUL-terminated (cuModuleLoadDataEx).
const char* MemtestKernelsPtx();

// (u64 base, u64 elements, u32 per_thread, u32 kind, u64 param, u64 xor, u64 logical)
inline constexpr const char* kFillKernelName = "labcheck_mt_fill";
// (u64 base, u64 elements, u32 per_thread, u32 kind, u64 param, u64 xor, u64 logical, u64 errors,
//  u32 invert_after)
inline constexpr const char* kCheckKernelName = "labcheck_mt_check";
// (u64 base, u64 bytes, u64 logical, u64 total, u64 errors, u32 check); one thread.
inline constexpr const char* kWalkKernelName = "labcheck_mt_walk";

// What a pattern word is, by `kind`. `logical` is the byte offset of `base` within the whole tested
// memory (all chunks, in allocation order), so patterns that follow the position run on across
// chunks; `xor` is applied last (0, or ~0 for the complement).
enum class PatternKind : uint32_t {
  Constant = 0,        // every word = param
  OwnAddress = 1,      // every word = its own device address
  WalkingBit32 = 2,    // 32-bit word j (j = logical / 4) = 1 << ((param + j) mod 32)
  Modulo20 = 3,        // 32-bit word j = lo32(param) where j mod 20 = hi32(param), else its complement
  RandomSequence = 4,  // 8-byte word i (i = logical / 8) = MixWord(i, lo32(param))
};

// The random-sequence pattern's word for index `i` and `seed`, as the kernels compute it (a
// murmur3 finaliser on 32-bit halves; the host and the simulator share this definition).
uint64_t MixWord(uint64_t i, uint32_t seed);

// The error buffer the check and walk kernels write (device memory, zeroed by the host):
//   u64 count                         at 0: words that differed (all of them, atomically counted)
//   u64 bits[64]                      at 8: per bit position, how many of the first kHistogramCap
//                                           differing words had it wrong
//   {u64 address, expected, read, reread}[kMaxRecords] at 520: the first kMaxRecords words that
//                                           differed (in the order the threads got there); `reread`
//                                           is a second load of the same word, which tells a word
//                                           stored wrong (the same value again) from one read wrong
inline constexpr size_t kErrorCountOffset = 0;
inline constexpr size_t kHistogramOffset = 8;
inline constexpr size_t kRecordsOffset = 520;
inline constexpr size_t kRecordBytes = 32;
inline constexpr uint64_t kMaxRecords = 32;
inline constexpr uint64_t kHistogramCap = uint64_t{1} << 16;
inline constexpr size_t kErrorBufferBytes = kRecordsOffset + kMaxRecords * kRecordBytes;  // 1544

}  // namespace labcheck::gpu::memtest

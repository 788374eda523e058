// The memory test's patterns: what each writes and checks, in which order, and where it comes
// from. One pass runs every pattern of kPassPatterns once over all the tested memory; the bit fade
// runs only in a long test (docs/gpu-checks.md, "gpu.memtest", has the table this file is).
//
// Sources (read, not copied): cuda_memtest (github.com/ComputationalRadiationPhysics/cuda_memtest,
// tests.cpp at 025bc92: Test0–Test9) and DCGM's memtest plugin, which ships the same tests as PTX
// (github.com/NVIDIA/DCGM, nvvs/plugin_src/memtest/tests.cu and Memtest.cpp at 72fa3fe).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/text.h"
#include "gpu/memtest/memtest_kernels_ptx.h"

namespace labcheck::gpu::memtest {

enum class PatternId {
  WalkingOnes,     // cuda_memtest Test0: a one walked over the address lines
  OwnAddress,      // Test1: every word holds its own address
  OnesZeros,       // Test2: moving inversions, all zeros then all ones
  EightBit,        // Test3: moving inversions, 0x80 in every byte and its complement
  RandomPattern,   // Test4: moving inversions, a random word and its complement
  WalkingBit32,    // Test6: moving inversions, a one (then a zero) shifted by one bit per word, 32 phases
  Modulo20,        // Test8: a random word in every 20th word, its complement elsewhere, 20 offsets
  RandomSequence,  // Test7: a different random word everywhere (ours: derived from the position)
  BitFade,         // Test9: all ones, wait, check; all zeros, wait, check (long test only)
};

// Every pattern of one pass, in the order they run: the ones that find aliasing first.
inline constexpr PatternId kPassPatterns[] = {PatternId::WalkingOnes,  PatternId::OwnAddress, PatternId::OnesZeros,
                                               PatternId::EightBit,     PatternId::RandomPattern,
                                               PatternId::WalkingBit32, PatternId::Modulo20,
                                               PatternId::RandomSequence};

struct PatternInfo {
  PatternId id;
  const char* key;      // "own_address": JSON, measurement keys
  Text title;           // «Собственный адрес» / "own address"
  Text source;          // "cuda_memtest Test1"
  Text finds;           // what a failure of this one points at
};
const PatternInfo& Info(PatternId id);
const PatternInfo* InfoByKey(const std::string& key);  // null when unknown

// One kernel launch over all the tested memory (every chunk), or a wait.
struct Step {
  enum class Op { Fill, Check, CheckInvert, WalkWrite, WalkCheck, Evict, Wait };
  Op op = Op::Fill;
  PatternKind kind = PatternKind::Constant;
  uint64_t param = 0;
  uint64_t xor_mask = 0;
  // Evict only: the logical byte range written with zeros (away from every walked offset) so that
  // the walked words leave the L2 cache for DRAM before they are checked.
  uint64_t range_begin = 0, range_end = 0;
  bool CountsErrors() const { return op == Op::Check || op == Op::CheckInvert || op == Op::WalkCheck; }
  // Bytes this step reads plus writes per tested byte (a check that also writes the complement: 2).
  double Traversals() const;
};

struct PatternPlan {
  uint64_t tested_bytes = 0;   // all chunks together
  uint64_t l2_bytes = 0;       // the card's L2 (the walk's eviction writes 4× this)
  uint64_t seed = 0x1AB0C4EC;  // the random words of a run: the same seed gives the same words
  int pass = 0;                // 0-based; the random words change with it
  double fade_wait_s = 0;      // the bit fade's wait per polarity
};

// The steps of `id` for this plan (deterministic: the same plan gives the same steps).
std::vector<Step> StepsOf(PatternId id, const PatternPlan& plan);
// The random 32-bit word a pattern uses on a pass (Test4's and Test8's p1; Test7's seed).
uint32_t RandomWord(uint64_t seed, int pass, PatternId id);

// The 8-byte word a Fill/Check step expects at `address` (the device address the host knows) and
// `logical` (its byte offset in the tested memory, a multiple of 8), xor applied: what the kernels
// compute, for the self-test and the tests.
uint64_t ExpectedWord(const Step& step, uint64_t address, uint64_t logical);
// The walked byte offsets below `total` (0, then 8, 16, 32, … 2^k < total) and their words.
std::vector<uint64_t> WalkOffsets(uint64_t total);
inline uint64_t WalkWord(uint64_t offset) { return offset == 0 ? 1 : offset; }

// Bytes read plus written by one run of the pattern over `tested_bytes` (its GB/s divides this).
double TraversalsOf(PatternId id, const PatternPlan& plan);

}  // namespace labcheck::gpu::memtest

// The memory test's kernels and patterns (src/gpu/memtest/): the embedded PTX assembled by the
// toolkit's ptxas where it is installed, the steps each pattern runs as its source defines them,
// the words the host expects, and the self-test's flips.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <set>

#include "gpu/memtest/memtest_kernels_ptx.h"
#include "gpu/memtest/memtest_patterns.h"
#include "gpu/memtest/memtest_runner.h"
#include "platform/files.h"
#include "ptxas.h"

namespace labcheck::gpu::memtest {
namespace {

namespace fs = std::filesystem;

using testing::FindPtxas;

TEST(MemtestKernels, PtxAssemblesForEveryArchitectureWithinThirtyTwoRegistersWithoutSpills) {
  const std::string ptxas = FindPtxas();
  if (ptxas.empty()) GTEST_SKIP() << "no ptxas (CUDA toolkit) here: the PTX is checked by the simulator only";
  Result<std::string> dir = MakePrivateTempDir("labcheck_memtest_ptx");
  ASSERT_TRUE(dir.ok());
  const std::string file = *dir + "/memtest.ptx";
  std::ofstream(file) << MemtestKernelsPtx();
  for (const char* arch : {"sm_75", "sm_80", "sm_89", "sm_90"}) {
    const testing::Assembled assembled = testing::Assemble(ptxas, file, arch);
    const std::string& out = assembled.output;
    EXPECT_EQ(assembled.exit_code, 0) << arch << ":\n" << out;
    EXPECT_EQ(out.find("warning"), std::string::npos) << arch << ":\n" << out;
    for (const char* kernel : {kFillKernelName, kCheckKernelName, kWalkKernelName})
      EXPECT_NE(out.find(std::string("Function properties for ") + kernel), std::string::npos) << arch << out;
    size_t clean = 0;
    for (size_t at = 0; (at = out.find("0 bytes spill stores", at)) != std::string::npos; ++at) ++clean;
    EXPECT_EQ(clean, 3u) << arch << ":\n" << out;
  }
  RemoveTree(*dir);
}

TEST(MemtestKernels, PtxIsTheOldIsaAndAsciiEveryDriverJits) {
  const std::string ptx = MemtestKernelsPtx();
  EXPECT_EQ(ptx.rfind(".version 4.1\n.target sm_52\n.address_size 64\n", 0), 0u);
  for (char c : ptx) ASSERT_LT(static_cast<unsigned char>(c), 0x80) << "ptxas refuses non-ASCII, comments included";
  for (const char* kernel : {kFillKernelName, kCheckKernelName, kWalkKernelName})
    EXPECT_NE(ptx.find(std::string(".entry ") + kernel + "("), std::string::npos) << kernel;
  EXPECT_NE(ptx.find("st.global.v2.u64"), std::string::npos);     // 16-byte stores
  EXPECT_NE(ptx.find("ld.global.cg.v2.u64"), std::string::npos);  // 16-byte loads past L1
  EXPECT_NE(ptx.find("atom.global.add.u64"), std::string::npos);  // the error count
  // The error buffer's layout as the header states it, in the PTX's own offsets and limits.
  EXPECT_NE(ptx.find("setp.ge.u64 %p8, %rd19, " + std::to_string(kMaxRecords) + ";"), std::string::npos);
  EXPECT_NE(ptx.find("setp.ge.u64 %p8, %rd19, " + std::to_string(kHistogramCap) + ";"), std::string::npos);
  EXPECT_NE(ptx.find("[%rd20+" + std::to_string(kRecordsOffset) + "]"), std::string::npos);
  EXPECT_NE(ptx.find("[%rd22+" + std::to_string(kHistogramOffset) + "]"), std::string::npos);
  EXPECT_EQ(kRecordBytes, 32u);  // shl.b64 %rd20, %rd19, 5
  EXPECT_NE(ptx.find("shl.b64 %rd20, %rd19, 5;"), std::string::npos);
}

TEST(MemtestPatterns, APassRunsTheSourcesStepsInOrder) {
  PatternPlan plan;
  plan.tested_bytes = uint64_t{8} << 30;
  plan.l2_bytes = 64 << 20;
  // Moving inversions (cuda_memtest's move_inv_test): write P, check P and write ~P, check ~P.
  const std::vector<Step> own = StepsOf(PatternId::OwnAddress, plan);
  ASSERT_EQ(own.size(), 3u);
  EXPECT_EQ(own[0].op, Step::Op::Fill);
  EXPECT_EQ(own[1].op, Step::Op::CheckInvert);
  EXPECT_EQ(own[2].op, Step::Op::Check);
  EXPECT_EQ(own[2].xor_mask, ~uint64_t{0});
  EXPECT_EQ(StepsOf(PatternId::OnesZeros, plan).size(), 6u);        // Test2: (0, ~0) then (~0, 0)
  EXPECT_EQ(StepsOf(PatternId::WalkingBit32, plan).size(), 64u * 3);  // Test6: 32 phases, one and zero
  EXPECT_EQ(StepsOf(PatternId::Modulo20, plan).size(), 40u);          // Test8: 20 offsets, write and check
  // The walk: write, push the walked words out of L2 with writes between them, check.
  const std::vector<Step> walk = StepsOf(PatternId::WalkingOnes, plan);
  ASSERT_EQ(walk.size(), 3u);
  EXPECT_EQ(walk[1].op, Step::Op::Evict);
  EXPECT_GE(walk[1].range_end - walk[1].range_begin, 4 * plan.l2_bytes);
  for (uint64_t o : WalkOffsets(plan.tested_bytes)) EXPECT_FALSE(o >= walk[1].range_begin && o < walk[1].range_end) << o;
  // One pass reads and writes the memory 324 times (about 17 s on a 32 GB card at 610 GB/s).
  double traversals = 0;
  for (PatternId id : kPassPatterns) traversals += TraversalsOf(id, plan);
  EXPECT_DOUBLE_EQ(traversals, 324);
  // Bit fade (Test9): zeros, wait, check and write ones, wait, check.
  const std::vector<Step> fade = StepsOf(PatternId::BitFade, plan);
  ASSERT_EQ(fade.size(), 5u);
  EXPECT_EQ(fade[1].op, Step::Op::Wait);
  EXPECT_EQ(fade[3].op, Step::Op::Wait);
}

TEST(MemtestPatterns, RandomWordsRepeatForASeedAndPassAndChangeWithThePass) {
  EXPECT_EQ(RandomWord(7, 0, PatternId::RandomPattern), RandomWord(7, 0, PatternId::RandomPattern));
  EXPECT_NE(RandomWord(7, 0, PatternId::RandomPattern), RandomWord(7, 1, PatternId::RandomPattern));
  EXPECT_NE(RandomWord(7, 0, PatternId::RandomPattern), RandomWord(7, 0, PatternId::Modulo20));
  PatternPlan a, b;
  b.pass = 1;
  EXPECT_NE(StepsOf(PatternId::RandomPattern, a)[0].param, StepsOf(PatternId::RandomPattern, b)[0].param);
}

TEST(MemtestPatterns, ExpectedWordsAreWhatEachKindWrites) {
  Step walking{Step::Op::Fill, PatternKind::WalkingBit32, 3, 0};
  // 32-bit words 8 and 9 (byte offset 32): bits (3 + 8) and (3 + 9).
  EXPECT_EQ(ExpectedWord(walking, 0x1000, 32), (uint64_t{1} << 11) | (uint64_t{1} << (32 + 12)));
  walking.xor_mask = ~uint64_t{0};
  EXPECT_EQ(ExpectedWord(walking, 0x1000, 32), ~((uint64_t{1} << 11) | (uint64_t{1} << (32 + 12))));
  // Modulo 20 with offset 5: 32-bit word 25 holds p1, 24 its complement.
  const Step modulo{Step::Op::Fill, PatternKind::Modulo20, (uint64_t{5} << 32) | 0xA5A5F00Du, 0};
  EXPECT_EQ(ExpectedWord(modulo, 0, 96), uint64_t{~0xA5A5F00Du} | (uint64_t{0xA5A5F00Du} << 32));
  const Step own{Step::Op::Fill, PatternKind::OwnAddress, 0, 0};
  EXPECT_EQ(ExpectedWord(own, 0x7f0000001238, 8), 0x7f0000001238u);
  const Step random{Step::Op::Fill, PatternKind::RandomSequence, 99, 0};
  EXPECT_EQ(ExpectedWord(random, 0, 64), MixWord(8, 99));
  EXPECT_NE(MixWord(8, 99), MixWord(9, 99));
  EXPECT_NE(MixWord(uint64_t{8} << 32, 99), MixWord(8, 99));  // the upper half of the index counts
}

TEST(MemtestPatterns, WalkedOffsetsAreZeroAndThePowersOfTwoBelowTheSize) {
  const std::vector<uint64_t> walked = WalkOffsets(1 << 20);
  ASSERT_EQ(walked.front(), 0u);
  EXPECT_EQ(walked[1], 8u);
  EXPECT_EQ(walked.back(), uint64_t{1} << 19);
  EXPECT_EQ(WalkWord(0), 1u);
  EXPECT_EQ(WalkWord(4096), 4096u);
}

TEST(MemtestSelfTest, FlipsThreeDistinctAlignedWordsInThreePartsOfTheMemoryForEveryPattern) {
  const uint64_t bytes = uint64_t{1} << 30;
  for (PatternId id : {PatternId::WalkingOnes, PatternId::OwnAddress, PatternId::OnesZeros, PatternId::EightBit,
                       PatternId::RandomPattern, PatternId::WalkingBit32, PatternId::Modulo20, PatternId::RandomSequence,
                       PatternId::BitFade}) {
    const std::vector<uint64_t> offsets = FlipOffsets(id, bytes);
    ASSERT_EQ(offsets.size(), 3u) << Info(id).key;
    EXPECT_EQ(std::set<uint64_t>(offsets.begin(), offsets.end()).size(), 3u);
    for (uint64_t o : offsets) {
      EXPECT_EQ(o % 8, 0u);
      EXPECT_LT(o, bytes);
    }
    EXPECT_LT(offsets[0], bytes / 4);
    EXPECT_GE(offsets[2], bytes / 2);
    for (int i = 0; i < 3; ++i) EXPECT_LT(FlipBit(id, i), 64);
  }
  const std::vector<uint64_t> walked = WalkOffsets(bytes);
  for (uint64_t o : FlipOffsets(PatternId::WalkingOnes, bytes))  // the walk checks only its own words
    EXPECT_NE(std::find(walked.begin(), walked.end(), o), walked.end()) << o;
}

}  // namespace
}  // namespace labcheck::gpu::memtest

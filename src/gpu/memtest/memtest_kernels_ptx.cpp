#include "gpu/memtest/memtest_kernels_ptx.h"

#include <string>

namespace labcheck::gpu::memtest {

namespace {

// Hand-written PTX (PTX ISA reference: https://docs.nvidia.com/cuda/parallel-thread-execution/),
// in the register habits of bench/copy_kernels_ptx.cpp. The fill and check kernels share their
// first part (which element, which pattern word); it is written once below and put into both.
//
// Registers of the fill and check kernels:
//   %rd1 base as the host knows it   %rd2 elements   %r1 per_thread   %r2 kind
//   %rd3 param   %rd4 xor   %rd5 logical offset of base   %rd24 base as a global address
//   %rd6 this thread's element   %rd7 threads in the grid   %r3 (logical/4) mod 20 of the element
//   %r4 (4 · threads) mod 20   %r5 elements done by this thread
//   per element: %rd9 its global address, %rd10 its address as the host knows it, %rd11 its
//   logical offset; the pattern's two words come out in %rd14, %rd15.

constexpr const char* kHeader = R"PTX(.version 4.1
.target sm_52
.address_size 64
)PTX";

constexpr const char* kRegisters = R"PTX(.maxntid 256, 1, 1
.maxnreg 32
{
  .reg .pred %p<9>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<25>;
)PTX";

// This thread's first element and the grid's size; the mod-20 phase of the first element and
// how it moves per step (rem.u64 once per thread, not per element).
constexpr const char* kPrologue = R"PTX(
  cvta.to.global.u64 %rd24, %rd1;
  mov.u32 %r10, %ctaid.x;
  mov.u32 %r11, %ntid.x;
  mov.u32 %r12, %tid.x;
  mov.u32 %r13, %nctaid.x;
  mul.wide.u32 %rd6, %r10, %r11;
  cvt.u64.u32 %rd8, %r12;
  add.u64 %rd6, %rd6, %rd8;
  mul.wide.u32 %rd7, %r13, %r11;
  shl.b64 %rd8, %rd6, 4;
  add.u64 %rd8, %rd8, %rd5;
  shr.u64 %rd8, %rd8, 2;
  rem.u64 %rd8, %rd8, 20;
  cvt.u32.u64 %r3, %rd8;
  shl.b64 %rd8, %rd7, 2;
  rem.u64 %rd8, %rd8, 20;
  cvt.u32.u64 %r4, %rd8;
  mov.u32 %r5, 0;
)PTX";

// Stops after per_thread elements or at the end of the range; the element's three addresses.
constexpr const char* kLoopHead = R"PTX(
LOOP:
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  setp.ge.u64 %p1, %rd6, %rd2;
  @%p1 bra DONE;
  shl.b64 %rd8, %rd6, 4;
  add.u64 %rd9, %rd24, %rd8;
  add.u64 %rd10, %rd1, %rd8;
  add.u64 %rd11, %rd5, %rd8;
)PTX";

// The pattern's two 8-byte words of the element into %rd14, %rd15 (PatternKind), xor applied.
constexpr const char* kExpected = R"PTX(
  setp.eq.u32 %p3, %r2, 0;
  @%p3 bra K_CONSTANT;
  setp.eq.u32 %p3, %r2, 1;
  @%p3 bra K_ADDRESS;
  setp.eq.u32 %p3, %r2, 2;
  @%p3 bra K_WALKING;
  setp.eq.u32 %p3, %r2, 3;
  @%p3 bra K_MODULO;
  shr.u64 %rd16, %rd11, 3;
  cvt.u32.u64 %r20, %rd3;
@MIX(%rd14)@
  add.u64 %rd16, %rd16, 1;
@MIX(%rd15)@
  bra.uni K_DONE;
K_CONSTANT:
  mov.u64 %rd14, %rd3;
  mov.u64 %rd15, %rd3;
  bra.uni K_DONE;
K_ADDRESS:
  mov.u64 %rd14, %rd10;
  add.u64 %rd15, %rd10, 8;
  bra.uni K_DONE;
K_WALKING:
  shr.u64 %rd16, %rd11, 2;
  cvt.u32.u64 %r10, %rd16;
  cvt.u32.u64 %r11, %rd3;
  add.u32 %r10, %r10, %r11;
  mov.u32 %r12, 1;
  and.b32 %r11, %r10, 31;
  shl.b32 %r13, %r12, %r11;
  add.u32 %r11, %r10, 1;
  and.b32 %r11, %r11, 31;
  shl.b32 %r14, %r12, %r11;
  add.u32 %r11, %r10, 2;
  and.b32 %r11, %r11, 31;
  shl.b32 %r15, %r12, %r11;
  add.u32 %r11, %r10, 3;
  and.b32 %r11, %r11, 31;
  shl.b32 %r16, %r12, %r11;
  mov.b64 %rd14, {%r13, %r14};
  mov.b64 %rd15, {%r15, %r16};
  bra.uni K_DONE;
K_MODULO:
  mov.b64 {%r10, %r11}, %rd3;
  not.b32 %r12, %r10;
  sub.s32 %r11, %r11, %r3;
  setp.lt.s32 %p3, %r11, 0;
  @%p3 add.s32 %r11, %r11, 20;
  setp.eq.s32 %p3, %r11, 0;
  selp.b32 %r13, %r10, %r12, %p3;
  setp.eq.s32 %p3, %r11, 1;
  selp.b32 %r14, %r10, %r12, %p3;
  setp.eq.s32 %p3, %r11, 2;
  selp.b32 %r15, %r10, %r12, %p3;
  setp.eq.s32 %p3, %r11, 3;
  selp.b32 %r16, %r10, %r12, %p3;
  mov.b64 %rd14, {%r13, %r14};
  mov.b64 %rd15, {%r15, %r16};
K_DONE:
  xor.b64 %rd14, %rd14, %rd4;
  xor.b64 %rd15, %rd15, %rd4;
)PTX";

// MixWord(%rd16, seed %r20) into OUT: x = lo ^ hi·0x9E3779B9 ^ seed, then two murmur3 finalisers.
constexpr const char* kMix = R"PTX(  mov.b64 {%r10, %r11}, %rd16;
  mul.lo.u32 %r11, %r11, 0x9E3779B9;
  xor.b32 %r10, %r10, %r11;
  xor.b32 %r10, %r10, %r20;
@FMIX(%r21)@
  xor.b32 %r10, %r10, 0x5BD1E995;
@FMIX(%r22)@
  mov.b64 OUT, {%r21, %r22};)PTX";

// fmix32(%r10) into OUT, %r11 scratch.
constexpr const char* kFmix = R"PTX(  shr.b32 %r11, %r10, 16;
  xor.b32 OUT, %r10, %r11;
  mul.lo.u32 OUT, OUT, 0x85EBCA6B;
  shr.b32 %r11, OUT, 13;
  xor.b32 OUT, OUT, %r11;
  mul.lo.u32 OUT, OUT, 0xC2B2AE35;
  shr.b32 %r11, OUT, 16;
  xor.b32 OUT, OUT, %r11;)PTX";

constexpr const char* kAdvance = R"PTX(
  add.u32 %r3, %r3, %r4;
  setp.ge.u32 %p1, %r3, 20;
  @%p1 sub.u32 %r3, %r3, 20;
  add.u64 %rd6, %rd6, %rd7;
  add.u32 %r5, %r5, 1;
  bra.uni LOOP;
DONE:
  ret;
}
)PTX";

// One differing word (GADDR global address, VADDR as the host knows it, WANT, GOT) into the error
// buffer at %rd12: the count, the record while there is room (with a second load of the word),
// and one count per wrong bit for the first kHistogramCap words. %rd19–%rd23, %r23, %p8 scratch.
constexpr const char* kRecord = R"PTX(
  atom.global.add.u64 %rd19, [%rd12], 1;
  setp.ge.u64 %p8, %rd19, 32;
  @%p8 bra P_HIST;
  shl.b64 %rd20, %rd19, 5;
  add.u64 %rd20, %rd20, %rd12;
  ld.volatile.global.u64 %rd21, [GADDR];
  st.global.u64 [%rd20+520], VADDR;
  st.global.u64 [%rd20+528], WANT;
  st.global.u64 [%rd20+536], GOT;
  st.global.u64 [%rd20+544], %rd21;
P_HIST:
  setp.ge.u64 %p8, %rd19, 65536;
  @%p8 bra P_END;
  xor.b64 %rd21, WANT, GOT;
P_BIT:
  setp.eq.u64 %p8, %rd21, 0;
  @%p8 bra P_END;
  bfind.u64 %r23, %rd21;
  mul.wide.u32 %rd22, %r23, 8;
  add.u64 %rd22, %rd22, %rd12;
  red.global.add.u64 [%rd22+8], 1;
  mov.u64 %rd23, 1;
  shl.b64 %rd23, %rd23, %r23;
  xor.b64 %rd21, %rd21, %rd23;
  bra.uni P_BIT;
P_END:)PTX";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

std::string Mix(const std::string& out) {
  std::string mix = Replace(kMix, "OUT", out);
  mix = Replace(mix, "@FMIX(%r21)@", Replace(kFmix, "OUT", "%r21"));
  return Replace(mix, "@FMIX(%r22)@", Replace(kFmix, "OUT", "%r22"));
}

std::string Expected() {
  std::string text = Replace(kExpected, "@MIX(%rd14)@", Mix("%rd14"));
  return Replace(text, "@MIX(%rd15)@", Mix("%rd15"));
}

std::string Record(const std::string& prefix, const std::string& gaddr, const std::string& vaddr,
                   const std::string& want, const std::string& got) {
  std::string text = Replace(kRecord, "P_", prefix + "_");
  text = Replace(text, "GADDR", gaddr);
  text = Replace(text, "VADDR", vaddr);
  text = Replace(text, "WANT", want);
  return Replace(text, "GOT", got);
}

std::string Params(const std::string& kernel, const char* const* names, const char* const* types, int count) {
  std::string text = ".visible .entry " + kernel + "(\n";
  for (int i = 0; i < count; ++i)
    text += std::string("  .param .") + types[i] + " " + kernel + "_" + names[i] + (i + 1 < count ? ",\n" : "\n");
  return text + ")\n";
}

std::string FillKernel() {
  const char* names[] = {"base", "elements", "per_thread", "kind", "param", "xor", "logical"};
  const char* types[] = {"u64", "u64", "u32", "u32", "u64", "u64", "u64"};
  const std::string k = kFillKernelName;
  return "\n// Writes the pattern over [base, base + 16*elements).\n" + Params(k, names, types, 7) + kRegisters +
         "  ld.param.u64 %rd1, [" + k + "_base];\n  ld.param.u64 %rd2, [" + k + "_elements];\n  ld.param.u32 %r1, [" +
         k + "_per_thread];\n  ld.param.u32 %r2, [" + k + "_kind];\n  ld.param.u64 %rd3, [" + k +
         "_param];\n  ld.param.u64 %rd4, [" + k + "_xor];\n  ld.param.u64 %rd5, [" + k + "_logical];" + kPrologue +
         kLoopHead + Expected() + "  st.global.v2.u64 [%rd9], {%rd14, %rd15};" + kAdvance;
}

// Reads each element, records each of its words that differs from the pattern, then (invert_after)
// writes the complement of the pattern: the moving-inversions read-and-write step.
std::string CheckKernel() {
  const char* names[] = {"base", "elements", "per_thread", "kind", "param", "xor", "logical", "errors", "invert_after"};
  const char* types[] = {"u64", "u64", "u32", "u32", "u64", "u64", "u64", "u64", "u32"};
  const std::string k = kCheckKernelName;
  return "\n// Checks [base, base + 16*elements) against the pattern; see the header for the error buffer.\n" +
         Params(k, names, types, 9) + kRegisters + "  ld.param.u64 %rd1, [" + k + "_base];\n  ld.param.u64 %rd2, [" + k +
         "_elements];\n  ld.param.u32 %r1, [" + k + "_per_thread];\n  ld.param.u32 %r2, [" + k +
         "_kind];\n  ld.param.u64 %rd3, [" + k + "_param];\n  ld.param.u64 %rd4, [" + k + "_xor];\n  ld.param.u64 %rd5, [" +
         k + "_logical];\n  ld.param.u64 %rd12, [" + k + "_errors];\n  ld.param.u32 %r6, [" + k +
         "_invert_after];\n  cvta.to.global.u64 %rd12, %rd12;" + kPrologue + kLoopHead + Expected() +
         R"PTX(  ld.global.cg.v2.u64 {%rd16, %rd17}, [%rd9];
  setp.ne.u64 %p5, %rd16, %rd14;
  setp.ne.u64 %p6, %rd17, %rd15;
  or.pred %p7, %p5, %p6;
  @%p7 bra MISMATCH;
STORE:
  setp.eq.u32 %p1, %r6, 0;
  @%p1 bra NEXT;
  not.b64 %rd18, %rd14;
  not.b64 %rd19, %rd15;
  st.global.v2.u64 [%rd9], {%rd18, %rd19};
  bra.uni NEXT;
MISMATCH:
  @!%p5 bra SECOND;)PTX" +
         Record("R1", "%rd9", "%rd10", "%rd14", "%rd16") + R"PTX(
SECOND:
  @!%p6 bra STORE;
  add.u64 %rd18, %rd9, 8;
  add.u64 %rd13, %rd10, 8;)PTX" +
         Record("R2", "%rd18", "%rd13", "%rd15", "%rd17") + R"PTX(
  bra.uni STORE;
NEXT:)PTX" + kAdvance;
}

// cuda_memtest's Test0 over the whole tested memory: the word at byte offset 0 holds 1 and the word
// at each power-of-two offset 2^k (k ≥ 3) holds 2^k; a dead or shorted address line sends a write
// to another offset, and the check finds one of the two words wrong. One thread, per chunk: only
// the offsets inside [logical, logical + bytes) are touched.
std::string WalkKernel() {
  const char* names[] = {"base", "bytes", "logical", "total", "errors", "check"};
  const char* types[] = {"u64", "u64", "u64", "u64", "u64", "u32"};
  const std::string k = kWalkKernelName;
  return "\n// Walks a one over the address lines: writes (check = 0) or checks the words at 0 and 2^k.\n" +
         Params(k, names, types, 6) + kRegisters + R"PTX(  mov.u32 %r10, %tid.x;
  mov.u32 %r11, %ctaid.x;
  or.b32 %r10, %r10, %r11;
  setp.ne.u32 %p1, %r10, 0;
  @%p1 bra DONE;
)PTX" + "  ld.param.u64 %rd1, [" +
         k + "_base];\n  ld.param.u64 %rd2, [" + k + "_bytes];\n  ld.param.u64 %rd5, [" + k +
         "_logical];\n  ld.param.u64 %rd3, [" + k + "_total];\n  ld.param.u64 %rd12, [" + k +
         "_errors];\n  ld.param.u32 %r6, [" + k + "_check];" + R"PTX(
  cvta.to.global.u64 %rd24, %rd1;
  cvta.to.global.u64 %rd12, %rd12;
  mov.u64 %rd6, 0;
LOOP:
  setp.ge.u64 %p1, %rd6, %rd3;
  @%p1 bra DONE;
  setp.lt.u64 %p1, %rd6, %rd5;
  @%p1 bra NEXT;
  sub.u64 %rd8, %rd6, %rd5;
  setp.ge.u64 %p1, %rd8, %rd2;
  @%p1 bra NEXT;
  add.u64 %rd9, %rd24, %rd8;
  add.u64 %rd10, %rd1, %rd8;
  setp.eq.u64 %p1, %rd6, 0;
  selp.b64 %rd14, 1, %rd6, %p1;
  setp.ne.u32 %p1, %r6, 0;
  @%p1 bra CHECK;
  st.global.u64 [%rd9], %rd14;
  bra.uni NEXT;
CHECK:
  ld.global.cg.u64 %rd16, [%rd9];
  setp.eq.u64 %p1, %rd16, %rd14;
  @%p1 bra NEXT;)PTX" +
         Record("W", "%rd9", "%rd10", "%rd14", "%rd16") + R"PTX(
NEXT:
  setp.eq.u64 %p1, %rd6, 0;
  shl.b64 %rd7, %rd6, 1;
  selp.b64 %rd6, 8, %rd7, %p1;
  bra.uni LOOP;
DONE:
  ret;
}
)PTX";
}

uint32_t Fmix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

}  // namespace

const char* MemtestKernelsPtx() {
  static const std::string ptx = std::string(kHeader) + FillKernel() + CheckKernel() + WalkKernel();
  return ptx.c_str();
}

uint64_t MixWord(uint64_t i, uint32_t seed) {
  const uint32_t x = static_cast<uint32_t>(i) ^ (static_cast<uint32_t>(i >> 32) * 0x9E3779B9u) ^ seed;
  return uint64_t{Fmix(x)} | (uint64_t{Fmix(x ^ 0x5BD1E995u)} << 32);
}

}  // namespace labcheck::gpu::memtest

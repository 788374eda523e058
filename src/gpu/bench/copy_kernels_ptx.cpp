#include "gpu/bench/copy_kernels_ptx.h"

namespace labcheck::gpu {

// Hand-written PTX (PTX ISA reference: https://docs.nvidia.com/cuda/parallel-thread-execution/).
// Register names follow nvcc's habit (%rd for 64-bit, %r 32-bit, %f float, %p predicates).
const char kCopyKernelsPtx[] = R"PTX(.version 4.1
.target sm_52
.address_size 64

// dst[i] = src[i] for i < n, 16-byte elements; grid-stride loop with four
// loads in flight per thread, then one element at a time for the rest.
.visible .entry labcheck_copy16(
  .param .u64 labcheck_copy16_dst,
  .param .u64 labcheck_copy16_src,
  .param .u64 labcheck_copy16_n
)
.maxntid 256, 1, 1
.maxnreg 32
{
  .reg .pred %p<3>;
  .reg .b32 %r<21>;
  .reg .b64 %rd<20>;

  ld.param.u64 %rd1, [labcheck_copy16_dst];
  ld.param.u64 %rd2, [labcheck_copy16_src];
  ld.param.u64 %rd3, [labcheck_copy16_n];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  mul.wide.u32 %rd6, %r4, %r2;
  shl.b64 %rd7, %rd6, 4;
  mul.lo.u64 %rd8, %rd6, 3;
  shl.b64 %rd9, %rd6, 2;
COPY_FOUR:
  add.u64 %rd10, %rd4, %rd8;
  setp.ge.u64 %p1, %rd10, %rd3;
  @%p1 bra COPY_ONE;
  shl.b64 %rd11, %rd4, 4;
  add.u64 %rd12, %rd2, %rd11;
  add.u64 %rd13, %rd12, %rd7;
  add.u64 %rd14, %rd13, %rd7;
  add.u64 %rd15, %rd14, %rd7;
  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd12];
  ld.global.v4.u32 {%r9, %r10, %r11, %r12}, [%rd13];
  ld.global.v4.u32 {%r13, %r14, %r15, %r16}, [%rd14];
  ld.global.v4.u32 {%r17, %r18, %r19, %r20}, [%rd15];
  add.u64 %rd16, %rd1, %rd11;
  add.u64 %rd17, %rd16, %rd7;
  add.u64 %rd18, %rd17, %rd7;
  add.u64 %rd19, %rd18, %rd7;
  st.global.v4.u32 [%rd16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd17], {%r9, %r10, %r11, %r12};
  st.global.v4.u32 [%rd18], {%r13, %r14, %r15, %r16};
  st.global.v4.u32 [%rd19], {%r17, %r18, %r19, %r20};
  add.u64 %rd4, %rd4, %rd9;
  bra.uni COPY_FOUR;
COPY_ONE:
  setp.ge.u64 %p2, %rd4, %rd3;
  @%p2 bra COPY_DONE;
  shl.b64 %rd11, %rd4, 4;
  add.u64 %rd12, %rd2, %rd11;
  add.u64 %rd16, %rd1, %rd11;
  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd12];
  st.global.v4.u32 [%rd16], {%r5, %r6, %r7, %r8};
  add.u64 %rd4, %rd4, %rd6;
  bra.uni COPY_ONE;
COPY_DONE:
  ret;
}

// a[i] = b[i] + scalar * c[i] for i < n, four floats per element (STREAM's triad).
.visible .entry labcheck_triad_f32x4(
  .param .u64 labcheck_triad_f32x4_a,
  .param .u64 labcheck_triad_f32x4_b,
  .param .u64 labcheck_triad_f32x4_c,
  .param .u64 labcheck_triad_f32x4_n,
  .param .f32 labcheck_triad_f32x4_scalar
)
.maxntid 256, 1, 1
.maxnreg 32
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .f32 %f<14>;
  .reg .b64 %rd<12>;

  ld.param.u64 %rd1, [labcheck_triad_f32x4_a];
  ld.param.u64 %rd2, [labcheck_triad_f32x4_b];
  ld.param.u64 %rd3, [labcheck_triad_f32x4_c];
  ld.param.u64 %rd4, [labcheck_triad_f32x4_n];
  ld.param.f32 %f1, [labcheck_triad_f32x4_scalar];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd5, %r1, %r2;
  cvt.u64.u32 %rd6, %r3;
  add.u64 %rd5, %rd5, %rd6;
  mul.wide.u32 %rd7, %r4, %r2;
TRIAD_NEXT:
  setp.ge.u64 %p1, %rd5, %rd4;
  @%p1 bra TRIAD_DONE;
  shl.b64 %rd8, %rd5, 4;
  add.u64 %rd9, %rd2, %rd8;
  add.u64 %rd10, %rd3, %rd8;
  add.u64 %rd11, %rd1, %rd8;
  ld.global.v4.f32 {%f2, %f3, %f4, %f5}, [%rd9];
  ld.global.v4.f32 {%f6, %f7, %f8, %f9}, [%rd10];
  fma.rn.f32 %f10, %f1, %f6, %f2;
  fma.rn.f32 %f11, %f1, %f7, %f3;
  fma.rn.f32 %f12, %f1, %f8, %f4;
  fma.rn.f32 %f13, %f1, %f9, %f5;
  st.global.v4.f32 [%rd11], {%f10, %f11, %f12, %f13};
  add.u64 %rd5, %rd5, %rd7;
  bra.uni TRIAD_NEXT;
TRIAD_DONE:
  ret;
}
)PTX";

}  // namespace labcheck::gpu

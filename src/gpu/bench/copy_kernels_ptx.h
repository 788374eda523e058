// The PTX text of lab_check's two SM memory kernels, embedded in the binary: the driver's JIT
// compiles it for the card at cuModuleLoadDataEx (bench/kernel_module.h), so no CUDA toolkit and
// no NVRTC are needed on the machine. tests/gpu/copy_kernels_ptx_test.cpp assembles it with the
// toolkit's ptxas for sm_75, sm_80, sm_89 and sm_90 wherever ptxas is installed.
//
// `.version 4.1` / `.target sm_52`: the oldest PTX ISA and target that have everything the
// kernels use (64-bit addressing, ld/st.global.v4, fma.rn.f32, .maxnreg). A driver JITs PTX of any
// ISA version up to its own (4.1 is CUDA 6.5's) for any GPU at or above the target, so every driver
// lab_check can load and every GPU since Maxwell takes it; sm_52 is also what nvcc produced by
// default through CUDA 12, the most travelled JIT path there is.
//
// Both kernels run a grid-stride loop over 16-byte elements (uint4 / float4: one 128-bit load or
// store per element and thread), in 256-thread blocks capped at 32 registers (.maxnreg), so that
// 65536 registers hold a full SM of threads on every architecture (1024, 1536 or 2048 per SM):
// sm_count × (threads per SM / 256) blocks are one full wave (bench/sm_copy_bench.h).
#pragma once

namespace labcheck::gpu {

// NUL-terminated, as cuModuleLoadDataEx wants PTX.
extern const char kCopyKernelsPtx[];

// dst[i] = src[i] for i < n; params (u64 dst, u64 src, u64 n), n in 16-byte elements. Four loads
// in flight per thread, then one at a time for the rest.
inline constexpr const char* kCopyKernelName = "labcheck_copy16";
// a[i] = b[i] + scalar · c[i] on float4 elements (STREAM's triad); params (u64 a, u64 b, u64 c,
// u64 n, f32 scalar), n in 16-byte elements.
inline constexpr const char* kTriadKernelName = "labcheck_triad_f32x4";
// The block size both kernels are written for (.maxntid 256).
inline constexpr unsigned kKernelThreadsPerBlock = 256;

}  // namespace labcheck::gpu

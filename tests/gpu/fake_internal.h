// The fake machine's shared state and helpers, for the fakes' own files only (fake_cuda.cpp,
// fake_nvml.cpp, fake_cublaslt_nccl.cpp, fake_state.cpp); tests include fake_nvidia.h.
#pragma once
#include <cstdint>
#include <deque>
#include <mutex>

#include "fake_nvidia.h"

namespace labcheck::gpu::fake::internal {

using cuda::CUdeviceptr;
using cuda::CUstream;

struct FakeContext {
  int device = 0;
};
struct FakeStream {
  int device = 0;
  double clock_ms = 0;
};
struct FakeEvent {
  double at_ms = -1;
};

// What the fake machine owns besides FakeMachine's public state; reset with it.
struct Internals {
  std::deque<FakeContext> contexts;        // one primary context per GPU
  std::deque<FakeStream> default_streams;  // the legacy NULL stream per GPU
  std::deque<FakeStream> streams;
  std::deque<FakeEvent> events;
  int query_countdown = 0;
};

extern FakeMachine g_machine;
extern Internals g_state;
// The jobs' "all GPUs at once" threads call in concurrently; each thread has its own current
// context, as with the real driver.
extern std::recursive_mutex g_mutex;
extern thread_local int t_current;
#define FAKE_LOCK() std::lock_guard<std::recursive_mutex> fake_lock(::labcheck::gpu::fake::internal::g_mutex)

void Log(const char* call);
FakeStream* StreamOf(CUstream stream);
void Advance(FakeStream* stream, double ms);  // work on `stream`: its clock moves, the GPU is busy
double Ms(size_t bytes, double gbps);
bool IsPinned(const void* host);
void* HostPointer(CUdeviceptr pointer);
void ResetNccl();  // fake_cublaslt_nccl.cpp's communicators and pending reduces

}  // namespace labcheck::gpu::fake::internal

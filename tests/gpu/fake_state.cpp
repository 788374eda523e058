// The fake machine itself: its state, the helpers the fakes share, and FakeMachine's methods.
#include <algorithm>
#include <fmt/format.h>

#include "fake_internal.h"

namespace labcheck::gpu::fake {

namespace internal {

FakeMachine g_machine;
Internals g_state;
std::recursive_mutex g_mutex;
thread_local int t_current = -1;

void Log(const char* call) { g_machine.calls.emplace_back(call); }

FakeStream* StreamOf(CUstream stream) {
  if (stream == nullptr) return &g_state.default_streams.at(std::max(t_current, 0));
  return reinterpret_cast<FakeStream*>(stream);
}

void Advance(FakeStream* stream, double ms) {
  stream->clock_ms += ms + g_machine.gpus.at(stream->device).latency_ms;
  g_machine.busy = true;
  g_state.query_countdown = g_machine.stream_query_not_ready;
}

double Ms(size_t bytes, double gbps) { return gbps > 0 ? bytes / (gbps * 1e9) * 1e3 : 0; }

bool IsPinned(const void* host) {
  for (const void* p : g_machine.pinned)
    if (p == host) return true;
  return false;
}

void* HostPointer(CUdeviceptr pointer) { return reinterpret_cast<void*>(static_cast<uintptr_t>(pointer)); }

}  // namespace internal

using namespace internal;

FakeMachine& FakeMachine::Get() { return g_machine; }

FakeMachine& FakeMachine::Reset(int gpu_count) {
  for (auto& [pointer, sized] : g_machine.allocations) delete[] static_cast<char*>(HostPointer(pointer));
  for (const void* p : g_machine.pinned) delete[] static_cast<const char*>(p);
  g_machine = FakeMachine();
  g_state = Internals();
  ResetNccl();
  for (int i = 0; i < gpu_count; ++i) {
    FakeGpu gpu;
    gpu.bus_id = fmt::format("0000:{:02x}:00.0", 0x17 + 0x10 * i);
    g_machine.gpus.push_back(gpu);
    g_state.contexts.push_back({i});
    g_state.default_streams.push_back({i, 0});
  }
  return g_machine;
}

int FakeMachine::Count(const std::string& call) const {
  return static_cast<int>(std::count(calls.begin(), calls.end(), call));
}
int FakeMachine::First(const std::string& call) const {
  auto it = std::find(calls.begin(), calls.end(), call);
  return it == calls.end() ? -1 : static_cast<int>(it - calls.begin());
}
int FakeMachine::Last(const std::string& call) const {
  auto it = std::find(calls.rbegin(), calls.rend(), call);
  return it == calls.rend() ? -1 : static_cast<int>(calls.size() - 1 - (it - calls.rbegin()));
}

nvml::nvmlDevice_t FakeNvmlDevice(int index) {
  return reinterpret_cast<nvml::nvmlDevice_t>(static_cast<uintptr_t>(index + 1));
}

}  // namespace labcheck::gpu::fake

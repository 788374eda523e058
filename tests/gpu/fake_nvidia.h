// In-process fakes of the tables our loaders fill (CudaDriverApi, NvmlApi, CublasLtApi, NcclApi),
// for unit tests of the measurement logic on a machine without a GPU. Memory is host memory and
// copies really copy; time is modelled: every piece of work advances the clock of the stream it
// runs on by bytes / bandwidth, events read that clock, and nothing takes host time. So a figure
// timed with events comes out exactly as modelled, and one timed with the host clock does not.
//
// Also recorded: every call in order (`calls`), so a test can say "the barrier came after the
// warm-up" or "the context was retained once". One fake machine per test (FakeMachine::Reset).
// The simulated libraries of tests/sim drive the real binary end to end; these drive one function.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gpu/nvidia/cublaslt_api.h"
#include "gpu/nvidia/cuda_api.h"
#include "gpu/nvidia/nccl_api.h"
#include "gpu/nvidia/nvml_api.h"

namespace labcheck::gpu::fake {

struct FakeGpu {
  std::string name = "NVIDIA Fake GPU";
  std::string bus_id = "0000:01:00.0";
  size_t total_bytes = 8ull << 30;
  size_t free_bytes = 8ull << 30;  // before our own allocations
  int cc = 89;
  // Modelled bandwidths, GB/s (10^9 B/s), and a fixed latency per piece of work.
  double device_copy_gbps = 500;  // bytes read + written
  double h2d_pinned_gbps = 25, d2h_pinned_gbps = 26;
  double h2d_pageable_gbps = 12, d2h_pageable_gbps = 10;
  double peer_gbps = 20;
  double latency_ms = 0.01;
  // NVML
  unsigned pcie_gen_max = 4, pcie_width_max = 16;
  unsigned pcie_gen_idle = 1, pcie_width_idle = 16;  // links train down at idle
  std::vector<int> nvlink_remote;  // per link: index of the far-end GPU, or -1 for an NVSwitch
};

struct FakeMachine {
  std::vector<FakeGpu> gpus;
  std::vector<std::string> calls;  // function names in call order
  // CUdevice handles are not ordinals: 100 + ordinal, so a call that passes an ordinal fails.
  static constexpr int kHandleBase = 100;
  std::vector<std::vector<bool>> peer;  // cuDeviceCanAccessPeer answers; empty: all false
  bool fail_can_access_peer = false;
  double allreduce_busbw_gbps = 40;
  int stream_query_not_ready = 0;  // cuStreamQuery says "not ready" this many times after work
  // NVML
  bool nvml_has_remote_device_type = true;
  bool nvml_has_p2p_status = true;
  bool nvml_has_temperature_v = true;
  unsigned temperature_c = 55, temperature_v_c = 56;
  // cuBLASLt
  int fail_desc_set_attribute = 0;  // cublasStatus returned by cublasLtMatmulDescSetAttribute
  double matmul_tflops = 100;

  // Runtime state, reset with the machine.
  bool busy = false;                // work enqueued and not yet waited for
  int retained = 0, released = 0;   // primary context calls
  std::map<cuda::CUdeviceptr, std::pair<size_t, int>> allocations;  // pointer → bytes, device
  std::set<const void*> pinned;

  static FakeMachine& Get();
  static FakeMachine& Reset(int gpu_count);  // fresh machine with `gpu_count` default GPUs
  int Count(const std::string& call) const;
  // Index of the first (or last) call named `call` in `calls`, -1 when absent.
  int First(const std::string& call) const;
  int Last(const std::string& call) const;
};

// Tables filled with the fakes; optional entries follow the FakeMachine switches at fill time.
cuda::CudaDriverApi FakeCudaApi();
nvml::NvmlApi FakeNvmlApi();
cublaslt::CublasLtApi FakeCublasLtApi();
nccl::NcclApi FakeNcclApi();

// NVML handle of fake GPU i.
nvml::nvmlDevice_t FakeNvmlDevice(int index);

}  // namespace labcheck::gpu::fake

// The memory a test covers on one card: what the driver says is free, less a reserve for the
// driver and the desktop, allocated in one piece where the driver gives it and in smaller chunks
// where it does not. DCGM's memtest plugin allocates a configured number of chunks (default 1) and
// shrinks the total by 16 MiB per failed try (nvvs/plugin_src/memtest/Memtest.cpp,
// MemoryChunkManager.cpp at 72fa3fe); memtest_vulkan keeps 400 MiB free and insists on one
// contiguous buffer, so drivers that cap one allocation leave much of the card untested (its
// issues 7, 16 and 46). Here a failed allocation halves the chunk and goes on, so the total stays
// near what is free, and the tries that failed are kept: allocations failing far below what the
// driver says is free, with nothing else holding memory, are a capacity finding.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "gpu/bench/device_resources.h"
#include "gpu/memtest/memtest_errors.h"

namespace labcheck::gpu::memtest {

// memtest_vulkan's TEST_DATA_KEEP_FREE (src/main.rs): "trying to allocate memory size
// equal-or-greater to the reported heap0 budget often lead to system extreme slowdown or lockups
// since the Windows UI rendering requires some video memory" (its issue 14).
inline constexpr uint64_t kDefaultReserveBytes = uint64_t{400} << 20;
// Chunks are whole 2 MiB pages (the driver's allocation granularity for large buffers).
inline constexpr uint64_t kChunkGranularity = uint64_t{2} << 20;
inline constexpr uint64_t kSmallestChunk = uint64_t{64} << 20;
// Below this share of the target the allocations "fail far below the reported total".
inline constexpr double kAllocationShortShare = 0.75;

struct MemoryRequest {
  std::optional<uint64_t> bytes;     // --size: at most this much
  std::optional<double> fraction;    // --fraction: this share of the free memory
  uint64_t reserve_bytes = kDefaultReserveBytes;
  int chunks = 1;                    // the self-test asks for several, to cross chunk borders
};

struct TestMemory {
  uint64_t total_bytes = 0, free_bytes = 0;  // cuMemGetInfo before allocating
  uint64_t target_bytes = 0;                 // what was asked for
  std::vector<DeviceBuffer> chunks;          // in allocation order: the tested memory's order
  std::vector<TestedRange> ranges;           // the same as addresses and logical offsets
  uint64_t tested_bytes = 0;
  std::optional<uint64_t> first_failed_bytes;  // the first allocation the driver refused
  std::string failure;                         // its error
  // Allocations failed while well short of the target (see kAllocationShortShare).
  bool Short() const;
};

// Allocates in the current context. An error only when nothing at all could be allocated.
Result<TestMemory> AllocateTestMemory(const CudaDriver& driver, const MemoryRequest& request);

nlohmann::json MemoryJson(const TestMemory& memory);

}  // namespace labcheck::gpu::memtest

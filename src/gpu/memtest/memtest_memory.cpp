#include "gpu/memtest/memtest_memory.h"

#include <algorithm>

#include <fmt/format.h>

namespace labcheck::gpu::memtest {

namespace {

uint64_t RoundDownToChunk(uint64_t bytes) { return bytes / kChunkGranularity * kChunkGranularity; }

uint64_t TargetBytes(const MemoryRequest& request, uint64_t free_bytes) {
  const uint64_t usable = free_bytes > request.reserve_bytes ? free_bytes - request.reserve_bytes : 0;
  uint64_t target = usable;
  if (request.fraction) target = std::min<uint64_t>(usable, static_cast<uint64_t>(*request.fraction * static_cast<double>(free_bytes)));
  if (request.bytes) target = std::min(usable, *request.bytes);
  return RoundDownToChunk(target);
}

}  // namespace

bool TestMemory::Short() const {
  return first_failed_bytes.has_value() && static_cast<double>(tested_bytes) < kAllocationShortShare * static_cast<double>(target_bytes);
}

Result<TestMemory> AllocateTestMemory(const CudaDriver& driver, const MemoryRequest& request) {
  TestMemory memory;
  size_t free_bytes = 0, total_bytes = 0;
  Status status = driver.Check(driver.api().cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
  if (!status.ok()) return status;
  memory.free_bytes = free_bytes;
  memory.total_bytes = total_bytes;
  memory.target_bytes = TargetBytes(request, free_bytes);
  if (memory.target_bytes < kChunkGranularity)
    return Status::Error(fmt::format("only {} MiB free ({} MiB kept for the driver): nothing left to test", free_bytes >> 20,
                                     request.reserve_bytes >> 20));
  uint64_t chunk = RoundDownToChunk(memory.target_bytes / static_cast<uint64_t>(std::max(1, request.chunks)));
  chunk = std::max(chunk, kChunkGranularity);
  while (memory.tested_bytes < memory.target_bytes && chunk >= std::min(kSmallestChunk, memory.target_bytes)) {
    const uint64_t want = std::min(chunk, memory.target_bytes - memory.tested_bytes);
    cuda::CUdeviceptr pointer = 0;
    const cuda::CUresult result = driver.api().cuMemAlloc(&pointer, want);
    if (result == cuda::kErrorOutOfMemory) {
      if (!memory.first_failed_bytes) {
        memory.first_failed_bytes = want;
        memory.failure = driver.Describe(result);
      }
      chunk = RoundDownToChunk(chunk / 2);
      continue;
    }
    if (result != cuda::kSuccess) return driver.Check(result, "cuMemAlloc");
    memory.chunks.push_back(DeviceBuffer::Adopt(driver, pointer, want));
    memory.ranges.push_back({pointer, want, memory.tested_bytes});
    memory.tested_bytes += want;
  }
  if (memory.chunks.empty())
    return Status::Error(fmt::format("the driver refused every allocation down to {} MiB ({})", kSmallestChunk >> 20, memory.failure));
  return memory;
}

nlohmann::json MemoryJson(const TestMemory& memory) {
  nlohmann::json chunks = nlohmann::json::array(), addresses = nlohmann::json::array();
  for (const TestedRange& r : memory.ranges) {
    chunks.push_back(r.bytes);
    addresses.push_back(fmt::format("0x{:x}", r.address));
  }
  nlohmann::json j = {{"total_bytes", memory.total_bytes}, {"free_bytes", memory.free_bytes},
                      {"target_bytes", memory.target_bytes}, {"tested_bytes", memory.tested_bytes},
                      {"chunks", chunks}, {"chunk_addresses", addresses}, {"allocation_short", memory.Short()}};
  if (memory.first_failed_bytes) {
    j["first_failed_bytes"] = *memory.first_failed_bytes;
    j["failure"] = memory.failure;
  }
  return j;
}

}  // namespace labcheck::gpu::memtest

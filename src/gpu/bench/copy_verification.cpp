#include "gpu/bench/copy_verification.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

namespace labcheck::gpu {
namespace {

// 16 KiB a window: four pages of 4 KiB, far more than one DMA descriptor, still microseconds.
constexpr size_t kWindowBytes = 16 << 10;

struct Window {
  size_t offset = 0;
  size_t bytes = 0;
  const char* where = "";
};

// Start, middle and end, each 4-byte aligned; for a buffer under three windows, its whole length
// in one (the copies measured here are 64 MiB and up).
std::vector<Window> Windows(size_t bytes) {
  const size_t size = std::min(kWindowBytes, bytes) & ~size_t{3};
  if (size == 0) return {};
  if (bytes < 3 * size) return {{0, size, "start"}};
  const size_t middle = (bytes / 2 - size / 2) & ~size_t{3};
  const size_t end = (bytes - size) & ~size_t{3};
  return {{0, size, "start"}, {middle, size, "middle"}, {end, size, "end"}};
}

// A word per position that differs from its neighbours and from a fill: a shifted, stale or
// zeroed window reads differently from what was sent.
uint32_t PatternWord(size_t byte_offset) {
  return static_cast<uint32_t>((byte_offset / 4) * 2654435761u) ^ 0x6A5B0C1Du;
}

std::vector<uint32_t> PatternOf(const Window& w) {
  std::vector<uint32_t> words(w.bytes / 4);
  for (size_t i = 0; i < words.size(); ++i) words[i] = PatternWord(w.offset + 4 * i);
  return words;
}

}  // namespace

Status PlantCopyPattern(const CudaDriver& driver, cuda::CUdeviceptr source, size_t bytes) {
  for (const Window& w : Windows(bytes)) {
    const std::vector<uint32_t> words = PatternOf(w);
    Status status = driver.Check(driver.api().cuMemcpyHtoD(source + w.offset, words.data(), w.bytes), "cuMemcpyHtoD");
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

Result<DataCheck> CheckCopyPattern(const CudaDriver& driver, cuda::CUdeviceptr destination, size_t bytes) {
  for (const Window& w : Windows(bytes)) {
    std::vector<uint32_t> read(w.bytes / 4);
    Status status = driver.Check(driver.api().cuMemcpyDtoH(read.data(), destination + w.offset, w.bytes), "cuMemcpyDtoH");
    if (!status.ok()) return status;
    const std::vector<uint32_t> sent = PatternOf(w);
    auto [got, want] = std::mismatch(read.begin(), read.end(), sent.begin());
    if (got == read.end()) continue;
    const size_t at = w.offset + 4 * static_cast<size_t>(got - read.begin());
    return DataCheck{false, fmt::format("at byte {} ({}): 0x{:08x} where 0x{:08x} was sent", at, w.where, *got, *want)};
  }
  return DataCheck{};
}

}  // namespace labcheck::gpu

// What the check kernels found, on the host: the words that differed (counted, the first few with
// their addresses and values), how often each bit position was wrong, and what that says: the
// address stride of the faults (a fault in one memory chip shows as fixed bits at a stride across
// the whole memory; NVIDIA publishes no map from address to chip, so the report names bits and
// strides, never a chip) and, from the own-address words, whether two addresses reach the same
// cells (aliasing: memory that is not what the card reports).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "gpu/nvidia/cuda_driver.h"

namespace labcheck::gpu::memtest {

struct WordError {
  uint64_t address = 0;  // the device address of the 8-byte word
  uint64_t expected = 0, read = 0, reread = 0;
  uint64_t Bits() const { return expected ^ read; }
};

struct ErrorTally {
  uint64_t count = 0;                 // words that differed
  std::array<uint64_t, 64> bits{};    // per bit position, over the first kHistogramCap words of each check
  bool bits_capped = false;           // some check had more words than the histogram counts
  std::vector<WordError> records;     // the first ones, at most kKeptRecords
  void Add(const ErrorTally& other);
  bool empty() const { return count == 0; }
};

// Records kept per pattern and card across all its checks (the buffer holds 32 per check).
inline constexpr size_t kKeptRecords = 32;

// Reads the error buffer at `buffer` (the current context's) after a check, and zeroes it again
// when it holds anything. Needs the kernels to have finished.
Result<ErrorTally> ReadAndResetErrors(const CudaDriver& driver, cuda::CUdeviceptr buffer);

// The greatest common divisor of the distances between the recorded addresses (0 with fewer than
// two): 1 MiB for faults every megabyte of the address space.
uint64_t AddressStride(const std::vector<WordError>& records);
// Per wrong bit position: the stride of the recorded addresses where that bit was wrong.
struct BitStride {
  int bit = 0;
  uint64_t count = 0;   // from the histogram
  uint64_t stride = 0;  // from the records; 0 when fewer than two
};
std::vector<BitStride> BitStrides(const ErrorTally& tally);

// A place in the tested memory: which chunk and where, as a byte offset into all of it.
struct TestedRange {
  uint64_t address = 0;  // device address of the chunk
  uint64_t bytes = 0;
  uint64_t logical = 0;  // offset of the chunk's first byte in the tested memory
};
std::optional<uint64_t> LogicalOffset(const std::vector<TestedRange>& ranges, uint64_t address);

// Aliasing read from own-address errors: a word that holds (the complement of) another tested
// word's address was written through that address, so both reach the same cells. `distance` is
// the logical distance between the two (16 GiB on a 32 GB card that has 16), `from_offset` the
// lowest offset of the pair's upper side seen, `pairs` how many records agree.
struct Aliasing {
  uint64_t distance = 0;
  uint64_t from_offset = 0;
  int pairs = 0;
};
std::optional<Aliasing> FindAliasing(const std::vector<WordError>& records, const std::vector<TestedRange>& ranges);

nlohmann::json TallyJson(const ErrorTally& tally, const std::vector<TestedRange>& ranges);
ErrorTally TallyFromJson(const nlohmann::json& j);

}  // namespace labcheck::gpu::memtest

// The memory test's view of a card's memory. Four 32 GB cards do not fit in the host that runs
// the tests, so what lab_check's memory-test kernels write (src/gpu/memtest/memtest_kernels_ptx.h)
// is kept as patterns, not bytes: per card, a map of its cells (folded physical offsets,
// core/physical_memory.h) to the last thing written there: a pattern (a function of the address
// it was written through) or "bytes" (any other write, such as a self-test's flipped word: the
// bytes at the address that wrote them). A check reads the cells through its own addresses:
//   - where a cell holds the pattern expected at that address, nothing differs (O(1) for a whole
//     range, the common case);
//   - where it holds another (an alias wrote through another address, a wrong pattern), the words
//     that differ are counted exactly for patterns periodic in the position (constant, walking bit,
//     modulo 20) and taken as all for those that follow the address or a hash of it (own address,
//     random sequence; two of their words are equal with a chance of 2^-64);
//   - then the profile's faulty cells (core/memory_faults.h) act on what is read.
// Host reads (cuMemcpyDtoH) see the bytes as written through their own address
// (core/device_memory.h: the pattern is each range's producer).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "core/device_memory.h"

namespace nvsim {

struct Pattern {
  uint32_t kind = 0;      // 0 constant, 1 own address, 2 walking bit (32-bit), 3 modulo 20, 4 random sequence
  uint64_t param = 0, xor_mask = 0;
  uint64_t address = 0;   // the device address the range starts at
  uint64_t logical = 0;   // that address's offset in the tested memory
  uint64_t Word(uint64_t at) const;  // the 8-byte word at device address `at`
};

// Records `pattern` over [place, place + bytes): the cells, and the bytes host reads will see.
void WritePattern(const DevicePlace& place, uint64_t bytes, const Pattern& pattern);

// A word a check reads differently from `expected`; return false to stop being told (the count
// goes on).
using MismatchVisitor = std::function<bool(uint64_t address, uint64_t expected, uint64_t read)>;
struct CheckOutcome {
  uint64_t count = 0;          // words that differ
  uint64_t ecc_corrected = 0;  // cells ECC corrected on the way
  bool ecc_uncorrected = false;
};
// Reads [place, place + bytes) as the card's kernels would and compares it with `expected`.
CheckOutcome CheckPattern(const DevicePlace& place, uint64_t bytes, const Pattern& expected, const MismatchVisitor& visit);

// Starts following the card's writes (called before the first memory-test kernel on it).
void TrackCells(int device);

}  // namespace nvsim

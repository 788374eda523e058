// Faulty memory cells for the memory test's scenarios (a GPU's "faults/memory_cells" in the
// profile; tests/sim/README.md, "Memory faults"). A cell is an 8-byte word at a physical offset of
// the card (core/physical_memory.h), or one every `stride` bytes from there (a bad chip shows as
// the same bits at a stride across the memory). What it does, when:
//   - `bit` reads as `stuck` (0 or 1) instead of what was written, always, or only
//   - after `after_s` seconds of modelled work on the card (heat, core/heat.h), or
//   - when the word was written more than `fade_s` real seconds before (a cell that leaks: only a
//     test that waits finds it), or
//   - when the word stored is `when_word` (a data-dependent fault; "own_address": the word is the
//     address it was written through, which only the own-address pattern writes);
//   - "ecc": "corrected" — with ECC on, the card corrects it: the data reads right and NVML's
//     corrected counters rise once per read; "uncorrected" — reading it loses the context (every
//     later CUDA call returns CUDA_ERROR_ECC_UNCORRECTABLE, 214) and the uncorrected counters rise.
// Faults act only on what the memory test's kernels read (cuda/cuda_memtest.cpp); host copies and
// the other kernels see the bytes as written.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace nvsim {

struct FaultCell {
  enum class Ecc { None, Corrected, Uncorrected };
  uint64_t offset = 0, stride = 0;
  int bit = 0;
  int stuck = 0;
  std::optional<double> after_s, fade_s;
  std::optional<uint64_t> when_word;
  bool when_own_address = false;
  Ecc ecc = Ecc::None;
};

// The GPU's cells, read once from its profile.
const std::vector<FaultCell>& FaultCells(int device);

// ECC events the memory test's reads caused, added to NVML's counters (nvml/nvml_health.cpp).
void AddEccEvents(int device, uint64_t corrected, uint64_t uncorrected);
uint64_t EccEvents(int device, bool uncorrected);

}  // namespace nvsim

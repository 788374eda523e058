// Where each allocation sits in its card's memory, for the memory test's faults: the driver hands
// out address ranges, and the sim places each allocation first-fit in a "physical" range of the
// card's size (2 MiB pages), so that a fault at a physical offset (core/memory_faults.h) is in the
// same place whatever virtual address the allocation got. A card that aliases (its memory is
// smaller than it reports: "faults/memory_alias_above_gib") folds every physical offset into the
// real cells: offset p reaches cell p mod size.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/device_memory.h"

namespace nvsim {

// Called by cuMemAlloc / cuMemFree for device memory.
void PlacePhysical(const AllocationRef& allocation);
void ForgetPhysical(const Allocation& allocation);

// The cell range [begin, end) a piece of an allocation reaches, and the device address there.
struct CellPiece {
  uint64_t begin = 0, end = 0;  // folded physical offsets
  uint64_t address = 0;         // device address of `begin` through this allocation
};
// [offset, offset + bytes) of `allocation`, split where the folding wraps.
std::vector<CellPiece> CellsOf(const Allocation& allocation, uint64_t offset, uint64_t bytes);

// The card's real size when it aliases (bytes), else nullopt.
std::optional<uint64_t> AliasAbove(int device);

}  // namespace nvsim

#include "core/physical_memory.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "core/profile.h"

namespace nvsim {

namespace {

constexpr uint64_t kPage = uint64_t{2} << 20;

std::mutex& PlacedLock() {
  static std::mutex mutex;
  return mutex;
}

// Per device: physical begin → size, of the live allocations.
std::map<int, std::map<uint64_t, uint64_t>>& Placed() {
  static auto* placed = new std::map<int, std::map<uint64_t, uint64_t>>();
  return *placed;
}

uint64_t Rounded(uint64_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

}  // namespace

void PlacePhysical(const AllocationRef& allocation) {
  std::lock_guard<std::mutex> lock(PlacedLock());
  std::map<uint64_t, uint64_t>& placed = Placed()[allocation->device];
  uint64_t at = 0;
  for (const auto& [begin, size] : placed) {
    if (begin >= at + Rounded(allocation->size)) break;
    at = std::max(at, begin + size);
  }
  placed[at] = Rounded(allocation->size);
  allocation->physical = at;
}

void ForgetPhysical(const Allocation& allocation) {
  std::lock_guard<std::mutex> lock(PlacedLock());
  auto it = Placed().find(allocation.device);
  if (it != Placed().end()) it->second.erase(allocation.physical);
}

std::optional<uint64_t> AliasAbove(int device) {
  if (device < 0 || device >= static_cast<int>(Profile().gpus.size())) return std::nullopt;
  const double gib = Profile().gpus[device].NumberOr("faults/memory_alias_above_gib", -1);
  if (gib <= 0) return std::nullopt;
  return static_cast<uint64_t>(gib * 1073741824.0);
}

std::vector<CellPiece> CellsOf(const Allocation& allocation, uint64_t offset, uint64_t bytes) {
  std::vector<CellPiece> pieces;
  const std::optional<uint64_t> real = AliasAbove(allocation.device);
  uint64_t physical = allocation.physical + offset;
  uint64_t address = allocation.base + offset;
  while (bytes > 0) {
    uint64_t cell = physical, run = bytes;
    if (real) {
      cell = physical % *real;
      run = std::min(bytes, *real - cell);
    }
    pieces.push_back({cell, cell + run, address});
    physical += run;
    address += run;
    bytes -= run;
  }
  return pieces;
}

}  // namespace nvsim

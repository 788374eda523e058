// The replay's segments set against a memory snapshot PyTorch took at the same point of a real run:
// torch.cuda.memory._snapshot() after the last step, as scripts/device/measure_vram_peak.py writes
// it (its "segments" list, each with total_size, allocated_size, stream and segment_type "small" or
// "large"; the script adds the run's max_memory_reserved and max_memory_allocated). Compared: what
// each pool reserves and holds allocated, on the default stream and the others, how many segments,
// the largest ones, and the two peaks.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/allocator/caching_allocator.h"
#include "core/status.h"
#include "core/text.h"

namespace labcheck::calc::allocator {

struct SnapshotFigures {
  uint64_t reserved_small = 0, reserved_large = 0;
  uint64_t allocated = 0;
  uint64_t reserved_default_stream = 0, reserved_other_streams = 0;
  int segments_small = 0, segments_large = 0;
  std::vector<uint64_t> largest_segments;  // the ten largest, largest first
  std::optional<uint64_t> max_reserved, max_allocated;

  uint64_t reserved() const { return reserved_small + reserved_large; }
};

// From the replay's snapshot (stream 0 is the default stream).
SnapshotFigures FiguresOf(const std::vector<SegmentInfo>& segments);
// From a snapshot file's JSON: the script's object, or torch's own {"segments": [...]}; a segment
// on stream 0 (torch's default stream) counts as the default stream's.
Result<SnapshotFigures> ReadSnapshot(const nlohmann::json& snapshot, Lang lang = Lang::En);

struct SnapshotComparison {
  SnapshotFigures replay;
  SnapshotFigures measured;
};

// {"replay": {...}, "measured": {...}, "reserved_ratio": replay/measured, ...}
nlohmann::json SnapshotComparisonJson(const SnapshotComparison& comparison);

}  // namespace labcheck::calc::allocator

#include "calc/allocator/snapshot_compare.h"

#include <algorithm>
#include <functional>

namespace labcheck::calc::allocator {
namespace {

constexpr size_t kLargestShown = 10;

void Add(SnapshotFigures& f, uint64_t total, uint64_t allocated, bool large, bool default_stream) {
  (large ? f.reserved_large : f.reserved_small) += total;
  (large ? f.segments_large : f.segments_small) += 1;
  (default_stream ? f.reserved_default_stream : f.reserved_other_streams) += total;
  f.allocated += allocated;
  f.largest_segments.push_back(total);
}

void Finish(SnapshotFigures& f) {
  std::sort(f.largest_segments.begin(), f.largest_segments.end(), std::greater<>());
  if (f.largest_segments.size() > kLargestShown) f.largest_segments.resize(kLargestShown);
}

nlohmann::json FiguresJson(const SnapshotFigures& f) {
  nlohmann::json j = {{"reserved_bytes", f.reserved()},
                      {"reserved_small_pool_bytes", f.reserved_small},
                      {"reserved_large_pool_bytes", f.reserved_large},
                      {"allocated_bytes", f.allocated},
                      {"reserved_default_stream_bytes", f.reserved_default_stream},
                      {"reserved_other_streams_bytes", f.reserved_other_streams},
                      {"segments_small", f.segments_small},
                      {"segments_large", f.segments_large},
                      {"largest_segments_bytes", f.largest_segments}};
  j["max_memory_reserved_bytes"] = f.max_reserved ? nlohmann::json(*f.max_reserved) : nlohmann::json(nullptr);
  j["max_memory_allocated_bytes"] = f.max_allocated ? nlohmann::json(*f.max_allocated) : nlohmann::json(nullptr);
  return j;
}

double Ratio(uint64_t a, uint64_t b) { return b == 0 ? 0 : static_cast<double>(a) / static_cast<double>(b); }

}  // namespace

SnapshotFigures FiguresOf(const std::vector<SegmentInfo>& segments) {
  SnapshotFigures f;
  for (const SegmentInfo& s : segments) Add(f, s.total_size, s.allocated_size, s.is_large, s.stream == 0);
  Finish(f);
  return f;
}

Result<SnapshotFigures> ReadSnapshot(const nlohmann::json& snapshot, Lang lang) {
  if (!snapshot.is_object() || !snapshot.contains("segments") || !snapshot.at("segments").is_array()) {
    return Status::Error(T("нет списка \"segments\": нужен torch.cuda.memory._snapshot() в том виде, как его пишет measure_vram_peak.py",
                           "no \"segments\" list: expected torch.cuda.memory._snapshot() as measure_vram_peak.py writes it")
                             .In(lang));
  }
  // A byte count: a whole number not below zero (parsed from a file it is unsigned; built in code, signed).
  const auto count = [](const nlohmann::json& j, const char* key) {
    if (!j.contains(key)) return false;
    const nlohmann::json& v = j.at(key);
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
  };
  SnapshotFigures f;
  for (const nlohmann::json& s : snapshot.at("segments")) {
    if (!s.is_object() || !count(s, "total_size") || !s.contains("segment_type") ||
        (s.contains("allocated_size") && !count(s, "allocated_size"))) {
      return Status::Error(T("сегмент без total_size или segment_type (или с нечисловым размером)",
                             "a segment without total_size or segment_type (or with a size that is not a count)")
                               .In(lang));
    }
    const uint64_t allocated = s.value("allocated_size", uint64_t{0});
    const bool default_stream = !s.contains("stream") || (s.at("stream").is_number() && s.at("stream").get<int64_t>() == 0);
    Add(f, s.at("total_size").get<uint64_t>(), allocated, s.at("segment_type") == "large", default_stream);
  }
  Finish(f);
  if (count(snapshot, "max_memory_reserved_bytes")) f.max_reserved = snapshot.at("max_memory_reserved_bytes").get<uint64_t>();
  if (count(snapshot, "max_memory_allocated_bytes")) f.max_allocated = snapshot.at("max_memory_allocated_bytes").get<uint64_t>();
  return f;
}

nlohmann::json SnapshotComparisonJson(const SnapshotComparison& c) {
  nlohmann::json j = {{"replay", FiguresJson(c.replay)},
                      {"measured", FiguresJson(c.measured)},
                      {"reserved_ratio", Ratio(c.replay.reserved(), c.measured.reserved())},
                      {"reserved_small_pool_ratio", Ratio(c.replay.reserved_small, c.measured.reserved_small)},
                      {"reserved_large_pool_ratio", Ratio(c.replay.reserved_large, c.measured.reserved_large)},
                      {"allocated_ratio", Ratio(c.replay.allocated, c.measured.allocated)}};
  if (c.replay.max_reserved && c.measured.max_reserved) j["max_reserved_ratio"] = Ratio(*c.replay.max_reserved, *c.measured.max_reserved);
  if (c.replay.max_allocated && c.measured.max_allocated) {
    j["max_allocated_ratio"] = Ratio(*c.replay.max_allocated, *c.measured.max_allocated);
  }
  return j;
}

}  // namespace labcheck::calc::allocator

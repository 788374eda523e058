#include "calc/allocator/replay.h"

namespace labcheck::calc::allocator {
namespace {

// Follows the peaks as the events go, remembering the stage each was reached in.
struct PeakWatch {
  uint64_t reserved = 0;
  uint64_t allocated = 0;
  const std::string* reserved_stage = nullptr;
  const std::string* allocated_stage = nullptr;

  void Update(const AllocatorStats& s, const std::string* stage) {
    if (s.reserved_peak > reserved) reserved = s.reserved_peak, reserved_stage = stage;
    if (s.allocated_peak > allocated) allocated = s.allocated_peak, allocated_stage = stage;
  }
};

}  // namespace

ReplayResult Replay(const Trace& trace, const AllocatorConfig& config, const ReplayLimits& limits) {
  CachingAllocator allocator(config, AllocatorConstants::Builtin(), limits.device_limit, limits.total_memory);
  std::vector<Block*> blocks(trace.tensors, nullptr);
  ReplayResult result;
  PeakWatch peak;
  const std::string* stage = nullptr;
  static const std::string kStart = "start";
  stage = &kStart;
  for (const TraceEvent& e : trace.events) {
    switch (e.op) {
      case TraceOp::Alloc:
        blocks[e.tensor] = allocator.Malloc(e.bytes, e.stream);
        if (blocks[e.tensor] == nullptr) {
          result.completed = false;
          result.oom_stage = *stage;
          result.oom_request = e.bytes;
        }
        break;
      case TraceOp::Free:
        if (blocks[e.tensor] != nullptr) allocator.Free(blocks[e.tensor]);
        blocks[e.tensor] = nullptr;
        break;
      case TraceOp::RecordStream:
        if (blocks[e.tensor] != nullptr) allocator.RecordStream(blocks[e.tensor], e.stream);
        break;
      case TraceOp::Marker: allocator.RecordEvent(e.stream); break;
      case TraceOp::Synchronize: allocator.Synchronize(e.stream, e.bytes); break;
      case TraceOp::SynchronizeAll: allocator.SynchronizeAll(); break;
      case TraceOp::EmptyCache: allocator.EmptyCache(); break;
      case TraceOp::ResetPeak:
        allocator.ResetPeakStats();
        result.reserved_before_reset = allocator.stats().reserved;
        peak = PeakWatch();
        break;
      case TraceOp::Stage:
        stage = &trace.stages[e.bytes];
        if (limits.record_stages) result.allocated_at_stages.emplace_back(*stage, allocator.stats().allocated);
        break;
    }
    if (!result.completed) break;
    peak.Update(allocator.stats(), stage);
  }
  result.reserved_peak = peak.reserved;
  result.allocated_peak = peak.allocated;
  if (peak.reserved_stage != nullptr) result.reserved_peak_stage = *peak.reserved_stage;
  if (peak.allocated_stage != nullptr) result.allocated_peak_stage = *peak.allocated_stage;
  result.alloc_retries = allocator.stats().alloc_retries;
  if (limits.snapshot) result.segments_at_end = allocator.Snapshot();
  return result;
}

}  // namespace labcheck::calc::allocator

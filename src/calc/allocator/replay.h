// Replays a step trace (step_trace.h) through the caching allocator model (caching_allocator.h):
// what torch.cuda.max_memory_reserved() and max_memory_allocated() would show from the loop's
// reset on, which stage of the step holds each peak, and whether the run completes within the
// memory the card leaves the allocator, with the cache freed and the allocation retried where it
// would fail, as the allocator does.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calc/allocator/caching_allocator.h"
#include "calc/allocator/step_trace.h"

namespace labcheck::calc::allocator {

struct ReplayLimits {
  uint64_t device_limit = UINT64_MAX;  // what cudaMalloc can hand out: card less context, NCCL, ...
  uint64_t total_memory = 0;           // the card's totalGlobalMem (sizes expandable segments)
  bool record_stages = false;          // keep what is allocated as each stage begins
  bool snapshot = false;               // keep the segments after the last step
};

struct ReplayResult {
  bool completed = true;          // false: the allocator raised OutOfMemoryError
  std::string oom_stage;          // where, when it did
  uint64_t oom_request = 0;
  uint64_t reserved_peak = 0;     // max_memory_reserved() since the loop's reset
  uint64_t allocated_peak = 0;    // max_memory_allocated() since the same reset
  uint64_t reserved_before_reset = 0;  // reserved when the loop reset the peaks (what the load left)
  std::string reserved_peak_stage;
  std::string allocated_peak_stage;
  int64_t alloc_retries = 0;      // times the cache was freed to retry a cudaMalloc
  std::vector<SegmentInfo> segments_at_end;  // the snapshot after the last step (when asked)
  std::vector<std::pair<std::string, uint64_t>> allocated_at_stages;  // (stage, allocated as it began) when asked
};

ReplayResult Replay(const Trace& trace, const AllocatorConfig& config, const ReplayLimits& limits);

}  // namespace labcheck::calc::allocator

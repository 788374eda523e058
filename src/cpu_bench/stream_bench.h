// Host memory bandwidth, STREAM-style (McCalpin's rules): three arrays of doubles, each at least
// four times the last-level caches, every CPU working on its own slice, first touched by the thread
// that later uses it. Bytes are counted as STREAM does: what the kernel reads plus what it writes
// (copy 16, triad 24 bytes per element); the extra read a cache does before writing a line
// (write-allocate) is real traffic that is not counted, as in STREAM.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "cpu_bench/thread_team.h"
#include "runner/cancel.h"

namespace labcheck::cpu_bench {

inline constexpr uint64_t kStreamMinArrayBytes = uint64_t{256} << 20;  // beyond any desktop LLC

struct StreamPlan {
  uint64_t array_bytes = 0;  // each of the three arrays
  int repeats = 0;           // timed passes of copy and triad, after one untimed warm-up pass
  double max_seconds = 0;    // stop repeating (after the first timed pass) once this has passed
  bool below_stream_rule = false;  // memory did not allow max(4 × LLC, 256 MiB) per array
};

// Sizes the run: max(4 × LLC, 256 MiB) per array, but the three arrays never take more than half
// of the available memory. Quick runs time 3 passes, full runs 10.
StreamPlan PlanStream(std::optional<uint64_t> llc_bytes, std::optional<uint64_t> available_bytes,
                      bool quick);

struct StreamRun {
  uint64_t elements = 0;  // per array
  int threads = 0;
  std::vector<double> copy_seconds;
  std::vector<double> triad_seconds;

  double copy_bytes() const { return 2.0 * sizeof(double) * elements; }
  double triad_bytes() const { return 3.0 * sizeof(double) * elements; }
};

// Runs the plan on the team. Fails when the arrays cannot be allocated or the results are wrong
// (which would mean a memory fault, not a slow machine). Stops early, with what it has, when
// cancelled.
Result<StreamRun> RunStream(const StreamPlan& plan, ThreadTeam& team, const CancelToken& cancel,
                            const std::function<void(double, const std::string&)>& progress);

}  // namespace labcheck::cpu_bench

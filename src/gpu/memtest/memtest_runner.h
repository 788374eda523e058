// Runs the memory test on one card: the patterns of memtest_patterns.h, pass after pass, over the
// memory of memtest_memory.h, each step one launch per chunk between two CUDA events, the error
// buffer read after every check. Time is device time (the events), as the burn test counts it, so
// "five minutes" is five minutes of the card's work; the bit fade's waits are real time.
//
// The self-test flips chosen bits through the driver (a word read with cuMemcpyDtoH, one bit
// changed, written back with cuMemcpyHtoD) after each pattern's first write: its check must then
// report exactly those bits at those addresses, on a real card as on the simulator.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/bench/device_resources.h"
#include "gpu/memtest/memtest_errors.h"
#include "gpu/memtest/memtest_memory.h"
#include "gpu/memtest/memtest_patterns.h"

namespace labcheck::gpu::memtest {

struct RunLimits {
  std::optional<double> device_seconds;  // no new step once this much device time is spent
  std::optional<int> passes;             // or after this many passes, whichever comes first
  bool bit_fade = false;                 // then the bit fade, with this wait per polarity
  double fade_wait_s = 0;
  bool self_test = false;
  uint64_t seed = PatternPlan{}.seed;
};

struct Flip {
  uint64_t address = 0;
  int bit = 0;
};

// One run of one pattern on one pass.
struct PatternRun {
  PatternId id = PatternId::WalkingOnes;
  int pass = 0;
  double traversals = 0;     // bytes read + written per tested byte
  uint64_t bytes_moved = 0;  // bytes read + written, every chunk
  double seconds = 0;        // device time of its launches
  ErrorTally errors;
  std::vector<Flip> flips;   // the self-test's
  bool complete = true;      // false when the time ran out or the card failed in the middle
};

struct CardOutcome {
  int passes = 0;            // complete passes
  double device_seconds = 0;
  std::string error;         // why the card stopped early, if it did
  bool context_lost = false; // CUDA_ERROR_ECC_UNCORRECTABLE (214): an uncorrectable ECC error
};

// Called after each pattern run (also an incomplete one), from the card's thread.
using RunSink = std::function<void(const PatternRun&)>;
// Asked before each step: true stops the card (the burn test's end).
using StopFn = std::function<bool()>;

// On `context`'s GPU (current on this thread) over `memory`, allocated there.
CardOutcome RunMemtest(const DeviceContext& context, const TestMemory& memory, const RunLimits& limits, const RunSink& sink,
                       const StopFn& stop = {});

// The words the self-test flips for pattern `id` (three, in three parts of the memory).
std::vector<uint64_t> FlipOffsets(PatternId id, uint64_t tested_bytes);
int FlipBit(PatternId id, int which);

nlohmann::json PatternRunJson(const PatternRun& run, const std::vector<TestedRange>& ranges);

}  // namespace labcheck::gpu::memtest

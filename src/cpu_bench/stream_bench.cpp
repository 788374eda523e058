#include "cpu_bench/stream_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "cpu_bench/stream_kernels.h"
#include "platform/huge_pages.h"

namespace labcheck::cpu_bench {
namespace {

constexpr uint64_t kHugePage = uint64_t{2} << 20;
constexpr double kScalar = 3.0;
constexpr double kA = 1.0, kB = 2.0;  // after copy c = 1; after triad c = 1 + 3·2 = 7

using Array = HugePageArray<double>;

// Transparent huge pages cut TLB misses that would otherwise be timed too (platform/huge_pages.h).
Array Allocate(uint64_t bytes) { return Array(static_cast<double*>(AllocateOnHugePages(bytes))); }

// Worker i's slice [begin, end), on 64-byte (8-double) boundaries so no cache line is shared.
std::pair<uint64_t, uint64_t> Slice(uint64_t elements, int worker, int workers) {
  auto edge = [&](int k) { return std::min(elements, elements * k / workers / 8 * 8); };
  uint64_t begin = edge(worker);
  uint64_t end = worker + 1 == workers ? elements : edge(worker + 1);
  return {begin, end};
}

// Every 4099th element plus the last: cheap, and it crosses every slice.
bool AllEqual(const double* c, uint64_t elements, double expected) {
  for (uint64_t i = 0; i < elements; i += 4099) {
    if (c[i] != expected) return false;
  }
  return c[elements - 1] == expected;
}

}  // namespace

StreamPlan PlanStream(std::optional<uint64_t> llc_bytes, std::optional<uint64_t> available_bytes,
                      bool quick) {
  StreamPlan plan;
  uint64_t wanted = std::max(kStreamMinArrayBytes, 4 * llc_bytes.value_or(0));
  uint64_t cap = available_bytes ? *available_bytes / 6 : wanted;
  plan.array_bytes = std::max<uint64_t>(kHugePage, std::min(wanted, cap) / kHugePage * kHugePage);
  plan.below_stream_rule = plan.array_bytes < wanted;
  plan.repeats = quick ? 3 : 10;
  plan.max_seconds = quick ? 2.0 : 8.0;
  return plan;
}

Result<StreamRun> RunStream(const StreamPlan& plan, ThreadTeam& team, const CancelToken& cancel,
                            const std::function<void(double, const std::string&)>& progress) {
  StreamRun run;
  run.elements = plan.array_bytes / sizeof(double);
  run.threads = team.size();
  Array a = Allocate(plan.array_bytes), b = Allocate(plan.array_bytes), c = Allocate(plan.array_bytes);
  if (!a || !b || !c) {
    return Status::Error(fmt::format("cannot allocate 3 arrays of {} MiB", plan.array_bytes >> 20));
  }
  const int workers = team.size();
  const uint64_t n = run.elements;

  progress(0, "first touch");
  team.Run([&](int w) {
    auto [begin, end] = Slice(n, w, workers);
    std::fill(a.get() + begin, a.get() + end, kA);
    std::fill(b.get() + begin, b.get() + end, kB);
    std::fill(c.get() + begin, c.get() + end, 0.0);
  });
  auto copy = [&](int w) {
    auto [begin, end] = Slice(n, w, workers);
    StreamCopy(a.get() + begin, c.get() + begin, end - begin);
  };
  auto triad = [&](int w) {
    auto [begin, end] = Slice(n, w, workers);
    StreamTriad(a.get() + begin, b.get() + begin, c.get() + begin, kScalar, end - begin);
  };

  team.Run(copy);  // warm-up pass: not timed (STREAM drops its first iteration too)
  team.Run(triad);
  const auto start = std::chrono::steady_clock::now();
  bool copy_ok = true;
  for (int r = 0; r < plan.repeats && !cancel.cancelled(); ++r) {
    progress(static_cast<double>(r) / plan.repeats, fmt::format("copy/triad {}/{}", r + 1, plan.repeats));
    run.copy_seconds.push_back(team.Run(copy));
    copy_ok = copy_ok && AllEqual(c.get(), n, kA);
    run.triad_seconds.push_back(team.Run(triad));
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > plan.max_seconds) break;
  }
  if (!copy_ok || !AllEqual(c.get(), n, kA + kScalar * kB)) {
    return Status::Error("STREAM results are wrong: memory returned values that were not written");
  }
  return run;
}

}  // namespace labcheck::cpu_bench

// Child job "gpu-allreduce": NCCL all-reduce over every local GPU from this one process
// (ncclCommInitAll), float32 sum, a sweep of message sizes. The parent sets NCCL_DEBUG=INFO and
// NCCL_DEBUG_FILE and reads the transport from that log; it also owns the watchdog and the retry
// with NCCL_P2P_DISABLE=1. `--max-bytes N` caps the sweep; `--stall-s S` (default 30) is how long
// one size may make no progress before it counts as a hang.
#include <algorithm>

#include "core/units.h"
#include "gpu/collective/allreduce_bench.h"
#include "gpu/collective/allreduce_json.h"
#include "gpu/collective/allreduce_math.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/jobs/job_bodies.h"

namespace labcheck::gpu {

namespace {

// This process drives every rank, so nccl-tests' average over processes is its own host clock.
nlohmann::json SweepJson(const SweepResult& sweep, int world) {
  return {{"sizes", SizesJson(sweep.sizes, /*all_ranks_here=*/true, world)},
          {"hung", sweep.hung},
          {"nccl_error", sweep.nccl_error},
          {"wrong_sum", sweep.wrong_sum}};
}

}  // namespace

Result<nlohmann::json> AllReduceJob(const std::vector<std::string>& raw_args) {
  JobArgs args = ParseJobArgs(raw_args);
  nlohmann::json envelope;
  std::unique_ptr<GpuRuntime> runtime = GpuRuntime::Open(args, &envelope);
  if (!runtime) return envelope;
  Result<std::unique_ptr<Nccl>> loaded = Nccl::Load(runtime->paths());
  if (!loaded.ok()) {
    nlohmann::json skip = SkipEnvelope(
        T("NCCL не найдена (libnccl.so.2): ни в системе, ни в site-packages Python",
          "NCCL not found (libnccl.so.2), neither system-wide nor in Python's site-packages"),
        T("pip install torch приносит NCCL (пакет nvidia-nccl); проверьте, что выбран тот же Python (--python)",
          "pip install torch brings NCCL (the nvidia-nccl package); check that the same Python is chosen (--python)"),
        loaded.status().message());
    skip["libraries"] = runtime->LibrariesJson();
    return skip;
  }
  // Never unloaded: the result is printed first (KeepUntilExit).
  std::shared_ptr<Nccl> kept = std::move(loaded).value();
  KeepUntilExit(kept);
  const Nccl& nccl = *kept;
  runtime->Record({"NCCL", nccl.file(), OriginName(nccl.origin()), nccl.VersionText()});
  return AllReduceJobOn(*runtime, nccl, args);
}

nlohmann::json AllReduceJobOn(GpuRuntime& runtime, const Nccl& nccl, const JobArgs& args) {
  const int count = runtime.device_count();
  RankGroup group;
  group.world_size = count;
  std::vector<nccl::ncclComm_t> comms(count, nullptr);
  std::vector<int> devices(count);
  for (int i = 0; i < count; ++i) devices[i] = i;
  for (int i = 0; i < count; ++i) {
    Result<std::shared_ptr<DeviceContext>> context = runtime.Context(i);
    if (!context.ok()) return FailEnvelope(T("не открылся контекст GPU", "could not open a GPU context"), {}, context.status().message());
    LocalRank rank;
    rank.rank = i;
    rank.context = *context;
    group.local.push_back(std::move(rank));
  }
  nlohmann::json out = OkEnvelope();
  out["ranks"] = count;
  out["nccl_version"] = nccl.VersionText();
  nccl::ncclResult_t init = nccl.api().ncclCommInitAll(comms.data(), count, devices.data());
  if (init != nccl::kSuccess) {
    out["sweep"] = {{"sizes", nlohmann::json::array()}, {"hung", false}, {"wrong_sum", false},
                    {"nccl_error", "ncclCommInitAll failed: " + nccl.Describe(init)}};
    out["libraries"] = runtime.LibrariesJson();
    return out;
  }
  for (int i = 0; i < count; ++i) group.local[i].comm = comms[i];

  // Every rank allocates the largest size: the GPU with the least free memory sets it.
  Result<size_t> free_bytes = SmallestFreeBytes(runtime.driver(), group);
  if (!free_bytes.ok()) {
    out["sweep"] = {{"sizes", nlohmann::json::array()}, {"hung", false}, {"wrong_sum", false},
                    {"nccl_error", "free memory unknown: " + free_bytes.status().message()}};
    out["libraries"] = runtime.LibrariesJson();
    return out;
  }
  size_t max_bytes = std::stoull(args.Option("max-bytes", std::to_string(args.quick ? 256 * kMiB : 1024 * kMiB)));
  while (max_bytes > kMiB && 2 * max_bytes > *free_bytes / 2) max_bytes /= 2;  // send + receive within half
  SweepPlan plan;
  plan.sizes_bytes = args.quick ? std::vector<size_t>{kMiB, 16 * kMiB, 256 * kMiB} : AllReduceSizes(kMiB, max_bytes);
  plan.sizes_bytes.erase(std::remove_if(plan.sizes_bytes.begin(), plan.sizes_bytes.end(),
                                        [&](size_t s) { return s > max_bytes; }),
                         plan.sizes_bytes.end());
  if (args.quick) {
    plan.warmup = 2;
    plan.iterations = 5;
  }
  plan.stall_timeout_s = std::stod(args.Option("stall-s", "30"));
  Status prepared = PrepareRanks(runtime.driver(), group, max_bytes);
  SweepResult sweep;
  if (!prepared.ok()) sweep.nccl_error = prepared.message();
  else sweep = RunAllReduceSweep(runtime.driver(), nccl, group, plan);
  // No ncclCommDestroy: a sweep that stalled or failed aborted its communicators, and healthy ones
  // end with the process, after the result is printed (KeepUntilExit); a destroy before it could
  // only add a way to hang.
  out["sweep"] = SweepJson(sweep, count);
  out["method"] = "ncclAllReduce float32 sum, out of place, ncclCommInitAll over all local GPUs from one process; "
                  "time_ms: CUDA events on each rank's stream around back-to-back iterations, slowest rank / "
                  "iterations; time_us_nccl_tests: the host clock from the first enqueue until every stream is "
                  "seen done / iterations (nccl-tests' all_reduce_perf, one process); algbw = bytes/time; "
                  "busbw = algbw*2(n-1)/n; result compared bit-exactly with an order-independent exact sum";
  out["method_ru"] = "ncclAllReduce, сумма float32, вне места, ncclCommInitAll по всем GPU узла из одного процесса; "
                     "time_ms: события CUDA в потоке каждого ранга вокруг итераций подряд, самый медленный ранг / "
                     "итерации; time_us_nccl_tests: часы хоста от первой постановки в очередь, пока все потоки не "
                     "закончат / итерации (all_reduce_perf из nccl-tests, один процесс); algbw = байты/время; "
                     "busbw = algbw*2(n-1)/n; результат сравнивается побитово с точной суммой, не зависящей от порядка";
  if (count < 2) out["busbw_note"] = "one GPU: nothing crosses a link, so bus bandwidth has no meaning";
  out["libraries"] = runtime.LibrariesJson();
  return out;
}

}  // namespace labcheck::gpu

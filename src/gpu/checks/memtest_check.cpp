// gpu.memtest: one short pass of the memory test (gpu/memtest/) over the free memory of every card
// at once, in the full check only (SKIP under --quick). One pass runs every pattern once: about
// 330 reads and writes of the tested memory, about 17 s on a 32 GB card at 610 GB/s, never more
// than kPassDeviceSeconds of GPU time (docs/gpu-checks.md, "gpu.memtest"). The standalone
// `lab_check memtest` runs the same job for minutes (app/memtest_command.cpp).
#include <fmt/format.h>

#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/memtest/memtest_verdicts.h"
#include "platform/files.h"

namespace labcheck::gpu {

namespace {

// The pass stops starting patterns after this much GPU time (a slow, large card).
constexpr double kPassDeviceSeconds = 60;

CheckResult RunMemtestCheck(CheckContext& context) {
  if (std::optional<CheckResult> skip = SkipWithoutGpus(context, kMemtestCheck.id)) return *skip;
  context.Progress(-1, "GPU: тест памяти, один проход / memory test, one pass");
  Result<std::string> dir = MakePrivateTempDir("lab_memtest");
  if (!dir.ok()) return Failed(kMemtestCheck.id, T("нет временной папки", "no temporary folder"), {}, dir.status().message());
  const std::string log_path = *dir + "/memtest.jsonl";
  ChildJobOutcome outcome = RunGpuJob(context, kMemtestJob,
                                      {"--passes", "1", "--seconds", fmt::format("{}", kPassDeviceSeconds), "--timeline", log_path});
  Result<std::string> text = ReadFile(log_path);
  RemoveTree(*dir);
  const memtest::MemtestLog log = memtest::ReadMemtestLog(text.ok() ? *text : "");
  std::optional<CheckResult> problem = EnvelopeProblem(kMemtestCheck.id, outcome);
  if (problem && log.cards.empty()) return *problem;
  memtest::JudgeOptions options;
  options.interrupted = context.cancel().cancelled();
  CheckResult result = memtest::JudgeMemtest(log, options);
  // A crash or a timeout after some patterns: what ran is reported, and the check fails for it.
  if (problem && problem->outcome == Outcome::Fail && result.outcome != Outcome::Fail) {
    result.outcome = Outcome::Fail;
    result.reason = problem->reason;
    result.hint = problem->hint;
    result.error = problem->error;
  }
  return result;
}

}  // namespace

const GpuCheckSpec kMemtestCheck = {
    .id = "gpu.memtest",
    .section = "gpu",
    .title = T("Тест памяти GPU", "GPU memory test"),
    .quick = QuickMode::FullOnly,
    .budget_s = 240,
    .job = kMemtestJob,
    .job_fn = MemtestJob,
    .run = RunMemtestCheck,
    .reads = {&kInventoryCheck},
};

}  // namespace labcheck::gpu

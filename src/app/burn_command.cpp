#include "app/burn_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/check_command.h"
#include "core/build_commit.h"
#include "core/regex_instances.h"  // <regex>, its code generated once
#include "gpu/burn/burn_verdicts.h"
#include "gpu/gpu_checks.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/memtest/memtest_verdicts.h"
#include "platform/files.h"
#include "probes/interpreter.h"
#include "report/anonymize.h"
#include "report/json_writer.h"
#include "report/markdown_writer.h"
#include "report/terminal_writer.h"
#include "runner/child_job.h"

namespace labcheck {
namespace {

struct BurnOptions {
  double minutes = 2;
  bool quick = false;
  std::string gpus;
  bool json = false;
  std::string out = "journal/burn-report.md";
  std::string python;
  bool memtest = false;  // the memory test beside the load (gpu.memtest in the same report)
};

constexpr double kQuickSeconds = 20;
constexpr double kIntervalS = 1.0;

// False after saying on stderr what is wrong with --minutes or --gpus.
bool OptionsValid(const BurnOptions& o, bool ru) {
  if (!(o.minutes > 0) || o.minutes > 24 * 60) {
    std::fprintf(stderr, ru ? "lab_check burn: --minutes %g: нужно число минут больше 0 и не больше 1440, например --minutes 5\n"
                            : "lab_check burn: --minutes %g: give minutes above 0 and at most 1440, e.g. --minutes 5\n",
                 o.minutes);
    return false;
  }
  if (!o.gpus.empty() && o.gpus != "all" && !std::regex_match(o.gpus, std::regex(R"(\d+(,\d+)*)"))) {
    std::fprintf(stderr, ru ? "lab_check burn: --gpus «%s»: нужен список номеров через запятую, например --gpus 0,2\n"
                            : "lab_check burn: --gpus \"%s\": give GPU numbers separated by commas, e.g. --gpus 0,2\n",
                 o.gpus.c_str());
    return false;
  }
  return true;
}

// Only where pip put NVIDIA's wheels: a Python that does not answer leaves them out, after one
// start-up budget, and the burn goes on with the other places.
std::vector<std::string> SitePackagesArgs(const Result<std::string>& python, const CancelToken& cancel) {
  std::vector<std::string> args;
  if (!python.ok()) return args;
  probes::Interpreter interpreter(*python, 1);
  for (const std::string& folder : interpreter.FindSitePackages(cancel).folders)
    args.insert(args.end(), {"--site-packages", folder});
  return args;
}

// The verdicts on whatever samples came back; the child's own failure when none did.
CheckResult BurnResult(const ChildJobOutcome& outcome, const gpu::burn::Timeline& timeline, bool interrupted) {
  bool any_sample = false;
  for (const auto& g : timeline.gpus) any_sample = any_sample || !g.samples.empty();
  CheckResult result;
  std::optional<CheckResult> problem = gpu::EnvelopeProblem("gpu.burn", outcome);
  if (!any_sample && (problem || interrupted)) {
    result = problem ? *problem : CheckResult{};
    if (interrupted) result.outcome = Outcome::NotRun;
  } else {
    result = gpu::burn::JudgeBurn(timeline, interrupted || (problem && problem->outcome != Outcome::Skip));
    if (problem && !interrupted && result.outcome != Outcome::Fail) {  // a crash or a timeout after some samples
      result.outcome = Outcome::Fail;
      result.reason = problem->reason;
      result.hint = problem->hint;
      result.error = problem->error;
    }
  }
  result.id = "gpu.burn";
  result.section = "gpu";
  result.title = T("Нагрузочный тест GPU", "GPU burn test");
  return result;
}

// gpu.memtest from the log the burn's memory test wrote beside the load.
CheckResult MemtestBeside(const std::string& log_text, bool interrupted, double duration_s) {
  const gpu::memtest::MemtestLog log = gpu::memtest::ReadMemtestLog(log_text);
  gpu::memtest::JudgeOptions options;
  options.interrupted = interrupted;
  CheckResult result = gpu::memtest::JudgeMemtest(log, options);
  result.title = T("Тест памяти GPU под нагрузкой", "GPU memory test under load");
  result.duration_s = duration_s;
  return result;
}

int Run(const BurnOptions& o, Lang lang, const std::string& self_exe) {
  const bool ru = lang == Lang::Ru;
  if (!OptionsValid(o, ru)) return kExitUsage;
  const double seconds = o.quick ? kQuickSeconds : o.minutes * 60;
  RegisterGpuChildJobs();
  const CancelToken cancel = InstallInterruptHandlers();

  const Result<std::string> python = probes::ResolvePython(o.python);
  std::vector<std::string> args = SitePackagesArgs(python, cancel);
  Result<std::string> dir = MakePrivateTempDir("lab_burn");
  if (!dir.ok()) {
    std::fprintf(stderr, "lab_check burn: %s\n", dir.status().message().c_str());
    return kExitReportNotWritten;
  }
  const std::string timeline_path = *dir + "/timeline.jsonl", memtest_path = *dir + "/memtest.jsonl";
  args.insert(args.end(), {"--seconds", fmt::format("{}", seconds), "--interval", fmt::format("{}", kIntervalS),
                           "--timeline", timeline_path});
  if (!o.gpus.empty()) args.insert(args.end(), {"--gpus", o.gpus});
  if (o.memtest) args.insert(args.end(), {"--memtest-log", memtest_path});
  if (!o.json)
    std::fprintf(stderr, ru ? "Нагрузочный тест: %.0f с работы GPU, Ctrl-C — остановить и сохранить то, что измерено\n"
                            : "Burn test: %.0f s of GPU time, Ctrl-C stops it and keeps what was measured\n",
                 seconds);

  Report report;
  report.lang = lang;
  report.meta.tool_version = LAB_CHECK_VERSION;
  report.meta.tool_commit = std::string(BuildCommit());
  report.meta.started_at = UtcTimestamp();
  report.meta.quick = o.quick;
  report.meta.python = python.ok() ? *python : "";
  const auto start = std::chrono::steady_clock::now();
  // Wall-clock backstop only: the run itself ends on device time (docs/gpu-checks.md).
  ChildJobOutcome outcome = RunChildJob(self_exe, gpu::kBurnJob, args, 3 * seconds + 120, cancel);
  const bool interrupted = cancel.cancelled();
  Result<std::string> text = ReadFile(timeline_path), memtest_text = ReadFile(memtest_path);
  RemoveTree(*dir);
  CheckResult result = BurnResult(outcome, gpu::burn::ReadTimeline(text.ok() ? *text : "", kIntervalS), interrupted);
  result.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.checks.push_back(result);
  if (o.memtest) report.checks.push_back(MemtestBeside(memtest_text.ok() ? *memtest_text : "", interrupted, result.duration_s));
  report.meta.duration_s = result.duration_s;
  report.meta.finished_at = UtcTimestamp();
  report.meta.interrupted = interrupted;

  PublishOptions publish;
  publish.command = "lab_check burn";
  publish.markdown_path = o.out;
  publish.json_stdout = o.json;
  return PublishReport(report, publish);
}

}  // namespace

void AddBurnSubcommand(CLI::App& app, const Lang* lang, int* exit_code, std::string self_exe) {
  const bool ru = *lang == Lang::Ru;
  auto options = std::make_shared<BurnOptions>();
  CLI::App* burn = app.add_subcommand(
      "burn", ru ? "нагрузочный тест: все выбранные GPU под матмулом N минут, замер каждую секунду, вердикты"
                 : "burn test: all selected GPUs under a matmul for N minutes, a sample every second, verdicts");
  burn->add_option("--minutes", options->minutes, ru ? "сколько минут работы GPU" : "minutes of GPU work")->capture_default_str();
  burn->add_flag("--quick", options->quick, ru ? "20 секунд вместо --minutes" : "20 seconds instead of --minutes");
  burn->add_option("--gpus", options->gpus, ru ? "номера GPU через запятую (по умолчанию все)" : "GPU numbers, comma-separated (default: all)");
  burn->add_flag("--json", options->json, ru ? "только JSON на stdout" : "only the JSON on stdout");
  burn->add_option("--out", options->out, ru ? "путь Markdown-отчёта; JSON ляжет рядом" : "Markdown report path; the JSON goes beside it")
      ->capture_default_str();
  burn->add_flag("--memtest", options->memtest,
                 ru ? "тест памяти на оставшейся памяти каждой карты рядом с нагрузкой (нагрев выявляет слабые ячейки)"
                    : "the memory test on each card's remaining memory beside the load (heat brings out weak cells)");
  burn->add_option("--python", options->python,
                   ru ? "интерпретатор, в site-packages которого искать cuBLAS" : "interpreter whose site-packages may hold cuBLAS");
  burn->callback([options, lang, exit_code, self_exe] { *exit_code = Run(*options, *lang, self_exe); });
}

}  // namespace labcheck

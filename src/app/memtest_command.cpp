#include "app/memtest_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/build_commit.h"
#include "core/regex_instances.h"  // <regex>, its code generated once
#include "gpu/gpu_checks.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/memtest/memtest_verdicts.h"
#include "platform/files.h"
#include "report/publish.h"
#include "runner/cancel.h"
#include "runner/child_job.h"

namespace labcheck {
namespace {

struct MemtestOptions {
  double minutes = 5;  // memtest_vulkan's "standard 5-minute test"
  int passes = 0;      // 0: time-bound
  std::string gpus;
  std::string size;
  std::optional<double> fraction;
  bool self_test = false;
  bool json = false;
  std::string out = "journal/memtest-report.md";
};

// The self-test checks the machinery, not the memory: 1 GiB in four chunks, so flips cross chunks.
constexpr unsigned long long kSelfTestBytes = 1ull << 30;
constexpr int kSelfTestChunks = 4;
// Bit fade: a tenth of the run per wait, from a two-minute run on; cuda_memtest waits 90 minutes.
constexpr double kFadeFrom = 120, kFadeShare = 0.1, kFadeLongest = 90 * 60;

bool Refuse(bool ru, const std::string& ru_text, const std::string& en_text) {
  std::fprintf(stderr, "lab_check memtest: %s\n", (ru ? ru_text : en_text).c_str());
  return false;
}

bool OptionsValid(const MemtestOptions& o, bool ru) {
  if (!(o.minutes > 0) || o.minutes > 24 * 60)
    return Refuse(ru, fmt::format("--minutes {}: нужно число минут больше 0 и не больше 1440, например --minutes 5", o.minutes),
                  fmt::format("--minutes {}: give minutes above 0 and at most 1440, e.g. --minutes 5", o.minutes));
  if (o.passes < 0 || o.passes > 10000)
    return Refuse(ru, fmt::format("--passes {}: нужно число проходов от 1 до 10000", o.passes),
                  fmt::format("--passes {}: give a number of passes from 1 to 10000", o.passes));
  if (!o.gpus.empty() && o.gpus != "all" && !std::regex_match(o.gpus, std::regex(R"(\d+(,\d+)*)")))
    return Refuse(ru, "--gpus «" + o.gpus + "»: нужен список номеров через запятую, например --gpus 0,2",
                  "--gpus \"" + o.gpus + "\": give GPU numbers separated by commas, e.g. --gpus 0,2");
  if (!o.size.empty() && (!ParseByteSize(o.size) || *ParseByteSize(o.size) < (2ull << 20)))
    return Refuse(ru, "--size «" + o.size + "»: нужен размер не меньше 2M, например --size 24G или --size 512M",
                  "--size \"" + o.size + "\": give a size of at least 2M, e.g. --size 24G or --size 512M");
  if (o.fraction && !(*o.fraction > 0 && *o.fraction <= 1))
    return Refuse(ru, fmt::format("--fraction {}: нужна доля свободной памяти больше 0 и не больше 1, например 0.5", *o.fraction),
                  fmt::format("--fraction {}: give a share of the free memory above 0 and at most 1, e.g. 0.5", *o.fraction));
  if (!o.size.empty() && o.fraction)
    return Refuse(ru, "--size и --fraction вместе не задаются: выберите одно", "--size and --fraction do not go together: pick one");
  return true;
}

std::vector<std::string> ChildArgs(const MemtestOptions& o, const MemtestSchedule& schedule, const std::string& log_path) {
  std::vector<std::string> args = {"--timeline", log_path};
  if (!o.gpus.empty()) args.insert(args.end(), {"--gpus", o.gpus});
  if (o.self_test) {
    args.insert(args.end(), {"--self-test", "1", "--passes", "1", "--fade-s", "0"});
    if (o.size.empty() && !o.fraction)
      args.insert(args.end(), {"--size", std::to_string(kSelfTestBytes), "--chunks", std::to_string(kSelfTestChunks)});
  } else if (o.passes > 0) {
    args.insert(args.end(), {"--passes", std::to_string(o.passes)});
  } else {
    args.insert(args.end(), {"--seconds", fmt::format("{}", schedule.pass_seconds)});
    if (schedule.fade_wait_s > 0) args.insert(args.end(), {"--fade-s", fmt::format("{}", schedule.fade_wait_s)});
  }
  if (!o.size.empty()) args.insert(args.end(), {"--size", std::to_string(*ParseByteSize(o.size))});
  if (o.fraction) args.insert(args.end(), {"--fraction", fmt::format("{}", *o.fraction)});
  return args;
}

// The child's wall-clock backstop: the run ends on device time; this only catches a hang.
double Backstop(const MemtestOptions& o, const MemtestSchedule& schedule) {
  if (o.self_test) return 900;
  if (o.passes > 0) return 900.0 * o.passes + 120;
  return 3 * schedule.pass_seconds + 2 * schedule.fade_wait_s + 300;
}

int Run(const MemtestOptions& o, Lang lang, const std::string& self_exe) {
  const bool ru = lang == Lang::Ru;
  if (!OptionsValid(o, ru)) return kExitUsage;
  RegisterGpuChildJobs();
  const CancelToken cancel = InstallInterruptHandlers();
  Result<std::string> dir = MakePrivateTempDir("lab_memtest");
  if (!dir.ok()) {
    std::fprintf(stderr, "lab_check memtest: %s\n", dir.status().message().c_str());
    return kExitReportNotWritten;
  }
  const MemtestSchedule schedule = ScheduleFor(o.minutes * 60);
  const std::string log_path = *dir + "/memtest.jsonl";
  if (!o.json) {
    const std::string what = o.self_test ? (ru ? "самопроверка: один проход с перевёрнутыми битами" : "self-test: one pass with flipped bits")
                             : o.passes > 0 ? fmt::format(fmt::runtime(ru ? "{} проход(ов)" : "{} pass(es)"), o.passes)
                                            : fmt::format(fmt::runtime(ru ? "{:.0f} с работы GPU" : "{:.0f} s of GPU time"), o.minutes * 60);
    std::fprintf(stderr, ru ? "Тест памяти GPU: %s; Ctrl-C — остановить и сохранить найденное\n"
                            : "GPU memory test: %s; Ctrl-C stops it and keeps what was found\n", what.c_str());
  }
  Report report;
  report.lang = lang;
  report.meta.tool_version = LAB_CHECK_VERSION;
  report.meta.tool_commit = std::string(BuildCommit());
  report.meta.started_at = UtcTimestamp();
  const auto start = std::chrono::steady_clock::now();
  ChildJobOutcome outcome = RunChildJob(self_exe, gpu::kMemtestJob, ChildArgs(o, schedule, log_path), Backstop(o, schedule), cancel);
  const bool interrupted = cancel.cancelled();
  Result<std::string> text = ReadFile(log_path);
  RemoveTree(*dir);
  const gpu::memtest::MemtestLog log = gpu::memtest::ReadMemtestLog(text.ok() ? *text : "");
  std::optional<CheckResult> problem = gpu::EnvelopeProblem("gpu.memtest", outcome);
  CheckResult result;
  if (log.cards.empty() && (problem || interrupted)) {
    result = problem ? *problem : CheckResult{};
    if (interrupted) result.outcome = Outcome::NotRun;
  } else {
    result = gpu::memtest::JudgeMemtest(log, {"gpu.memtest", o.self_test, interrupted, {}});
    if (problem && !interrupted && problem->outcome == Outcome::Fail && result.outcome != Outcome::Fail) {
      result.outcome = Outcome::Fail;
      result.reason = problem->reason;
      result.hint = problem->hint;
      result.error = problem->error;
    }
  }
  result.id = "gpu.memtest";
  result.section = "gpu";
  result.title = T("Тест памяти GPU", "GPU memory test");
  result.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.checks.push_back(result);
  report.meta.duration_s = result.duration_s;
  report.meta.finished_at = UtcTimestamp();
  report.meta.interrupted = interrupted;
  PublishOptions publish;
  publish.command = "lab_check memtest";
  publish.markdown_path = o.out;
  publish.json_stdout = o.json;
  return PublishReport(report, publish);
}

}  // namespace

std::optional<unsigned long long> ParseByteSize(const std::string& text) {
  static const std::regex form(R"(\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*)", std::regex::icase);
  std::smatch m;
  if (!std::regex_match(text, m, form)) return std::nullopt;
  const double value = std::stod(m[1].str());
  const char unit = m[2].str().empty() ? ' ' : static_cast<char>(std::toupper(m[2].str()[0]));
  const double scale = unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : unit == 'G' ? 1073741824.0 : unit == 'T' ? 1099511627776.0 : 1.0;
  if (!(value * scale >= 1) || value * scale > 1e15) return std::nullopt;
  return static_cast<unsigned long long>(std::llround(value * scale));
}

MemtestSchedule ScheduleFor(double seconds) {
  MemtestSchedule s;
  if (seconds >= kFadeFrom) s.fade_wait_s = std::min(kFadeLongest, kFadeShare * seconds);
  s.pass_seconds = seconds - 2 * s.fade_wait_s;
  return s;
}

void AddMemtestSubcommand(CLI::App& app, const Lang* lang, int* exit_code, std::string self_exe) {
  const bool ru = *lang == Lang::Ru;
  auto options = std::make_shared<MemtestOptions>();
  CLI::App* memtest = app.add_subcommand(
      "memtest", ru ? "тест памяти GPU: запись и проверка шаблонов по всей свободной памяти выбранных карт, вердикты"
                    : "GPU memory test: patterns written and checked over the free memory of the selected cards, verdicts");
  auto* minutes = memtest->add_option("--minutes", options->minutes,
                                      ru ? "минут работы GPU (по умолчанию 5, как «стандартный тест» memtest_vulkan)"
                                         : "minutes of GPU work (default 5, memtest_vulkan's 'standard test')");
  memtest->add_option("--passes", options->passes, ru ? "столько проходов всех шаблонов вместо --minutes" : "this many passes of every pattern instead of --minutes")
      ->excludes(minutes);
  memtest->add_option("--gpus", options->gpus, ru ? "номера GPU через запятую (по умолчанию все)" : "GPU numbers, comma-separated (default: all)");
  auto* size = memtest->add_option("--size", options->size,
                                   ru ? "проверить не больше стольких байт на карту: 24G, 512M" : "test at most this much per card: 24G, 512M");
  memtest->add_option_function<double>("--fraction", [options](double share) { options->fraction = share; },
                                       ru ? "проверить эту долю свободной памяти (0–1)" : "test this share of the free memory (0–1)")
      ->excludes(size);
  memtest->add_flag("--self-test", options->self_test,
                    ru ? "самопроверка: перевернуть выбранные биты между записью и проверкой, каждый шаблон должен найти ровно их"
                       : "self-test: flip chosen bits between write and check; every pattern must report exactly those");
  memtest->add_flag("--json", options->json, ru ? "только JSON на stdout" : "only the JSON on stdout");
  memtest->add_option("--out", options->out, ru ? "путь Markdown-отчёта; JSON ляжет рядом" : "Markdown report path; the JSON goes beside it")
      ->capture_default_str();
  memtest->callback([options, lang, exit_code, self_exe] { *exit_code = Run(*options, *lang, self_exe); });
}

}  // namespace labcheck

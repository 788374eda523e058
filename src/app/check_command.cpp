#include "app/check_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "app/all_checks.h"
#include "core/build_commit.h"
#include "platform/files.h"
#include "probes/interpreter.h"
#include "report/publish.h"
#include "report/report.h"
#include "report/stderr_progress.h"
#include "report/terminal_writer.h"
#include "runner/check_selection.h"
#include "runner/runner.h"

namespace labcheck {

int RunCheckCommand(const CheckCommandOptions& options, const std::string& self_exe) {
  const bool ru = options.lang == Lang::Ru;
  RunOptions run;
  run.quick = options.quick;
  run.skip_dist = options.skip_dist;
  run.lang = options.lang;
  run.timeout_scale = options.timeout_scale;
  run.self_exe = self_exe;
  if (auto python = probes::ResolvePython(options.python); python.ok()) {
    run.python = *python;
  } else if (!options.python.empty()) {
    std::fprintf(stderr, ru ? "lab_check: --python: %s. Укажите путь к интерпретатору с PyTorch, например --python ~/venvs/ai/bin/python\n"
                            : "lab_check: --python: %s. Give the path of an interpreter with PyTorch, e.g. --python ~/venvs/ai/bin/python\n",
                 python.status().message().c_str());
    return kExitUsage;
  }
  // One owner of the interpreter for the whole run: every part that needs Python asks it.
  run.interpreter = std::make_shared<probes::Interpreter>(run.python, run.timeout_scale);

  const Registry all = AllChecks();
  if (const std::string unmatched = UnmatchedPattern(all, options.only); !unmatched.empty()) {
    std::fprintf(stderr, ru ? "lab_check: --only: «%s» не подходит ни к одной проверке. Проверки: %s\n"
                            : "lab_check: --only: '%s' matches no check. The checks: %s\n",
                 unmatched.c_str(), CheckIds(all).c_str());
    return kExitUsage;
  }
  const Registry checks = SelectChecks(all, options.only);

  Report report;
  report.lang = options.lang;
  report.meta.tool_version = LAB_CHECK_VERSION;
  report.meta.tool_commit = std::string(BuildCommit());
  report.meta.started_at = UtcTimestamp();
  report.meta.quick = options.quick;
  report.meta.skip_dist = options.skip_dist;
  report.meta.python = run.python;
  report.meta.only = options.only;

  const CancelToken cancel = InstallInterruptHandlers();
  const auto start = std::chrono::steady_clock::now();
  {
    const bool live = isatty(STDERR_FILENO) != 0;
    StderrProgress progress(options.lang, live, TerminalStyle::ForStream(STDERR_FILENO).color);
    report.checks = RunChecks(checks, run, cancel, progress);
  }
  report.meta.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.meta.finished_at = UtcTimestamp();
  report.meta.interrupted = cancel.cancelled();
  AddAnalysis(report);
  PublishOptions publish;
  publish.markdown_path = options.out;
  publish.with_html = true;
  publish.html_path = options.html;
  publish.json_stdout = options.json_only;
  publish.json_file_only = options.json_only;
  publish.brief_terminal = !options.verbose;
  return PublishReport(report, publish);
}

}  // namespace labcheck

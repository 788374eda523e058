#include "app/check_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "app/all_checks.h"
#include "platform/files.h"
#include "probes/interpreter.h"
#include "report/anonymize.h"
#include "report/json_writer.h"
#include "report/report_files.h"
#include "report/terminal_writer.h"
#include "runner/check_selection.h"
#include "runner/runner.h"

namespace labcheck {

std::string JsonPathBeside(const std::string& markdown_path) {
  const std::string ext = ".md";
  if (markdown_path.size() > ext.size() &&
      markdown_path.compare(markdown_path.size() - ext.size(), ext.size(), ext) == 0) {
    return markdown_path.substr(0, markdown_path.size() - ext.size()) + ".json";
  }
  return markdown_path + ".json";
}

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

  const Identity who = Identity::OfThisProcess();
  Report report;
  report.lang = options.lang;
  report.meta.tool_version = LAB_CHECK_VERSION;
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
  AnonymizeReport(report, who);

  const std::string json_text = AnonymizeJson(ReportToJson(report), who).dump(2) + "\n";
  const std::string json_path = JsonPathBeside(options.out);
  bool written = true;
  auto write = [&](const std::string& path, const std::string& content) {
    Status s = WriteFileAtomically(path, content);
    if (!s.ok()) {
      written = false;
      std::fprintf(stderr, ru ? "lab_check: не удалось записать отчёт: %s. Укажите другое место: --out ПУТЬ\n"
                              : "lab_check: cannot write the report: %s. Choose another place with --out PATH\n",
                   Anonymize(s.message(), who).c_str());
    }
  };
  const std::string html_path = options.html.empty() ? HtmlPathBeside(options.out) : options.html;
  if (!options.json_only) {
    const std::vector<ReportFile> files = ReportFiles(report, options.out, html_path);
    for (const ReportFile& f : files) write(f.path, Anonymize(f.content, who));
    std::error_code ignored;  // a chart that cannot be removed is only an old file
    if (written)
      for (const std::string& old : StaleChartFiles(options.out, files)) std::filesystem::remove(old, ignored);
  }
  write(json_path, json_text);

  if (options.json_only || !written) {
    std::fwrite(json_text.data(), 1, json_text.size(), stdout);
  }
  if (!options.json_only) {
    std::cout << Anonymize(ReportToTerminal(report, TerminalStyle::ForStream(STDOUT_FILENO)), who);
    if (written) {
      std::cout << (ru ? "Отчёт: " : "Report: ") << Anonymize(options.out, who) << ", "
                << Anonymize(json_path, who) << ", " << Anonymize(html_path, who) << "\n";
    }
  }
  std::cout.flush();

  if (report.meta.interrupted) return kExitInterrupted;
  if (!written) return kExitReportNotWritten;
  for (const auto& c : report.checks) {
    if (c.outcome == Outcome::Fail) return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace labcheck

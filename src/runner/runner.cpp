#include "runner/runner.h"

#include <chrono>
#include <exception>

namespace labcheck {
namespace {

CheckResult NotRun(const Check& check) {
  CheckResult r;
  r.outcome = Outcome::NotRun;
  r.reason = T("проверка прервана пользователем (Ctrl-C) до её завершения",
               "the run was interrupted (Ctrl-C) before this check finished");
  (void)check;
  return r;
}

// Checks that do not apply under the chosen flags are SKIPs that name the flag.
std::optional<CheckResult> SkippedByFlags(const Check& check, const RunOptions& options) {
  if (options.skip_dist && check.distributed) {
    return Skipped(check.id, T("пропущено по флагу --skip-dist", "skipped: --skip-dist was given"));
  }
  if (options.quick && check.quick == QuickMode::FullOnly) {
    return Skipped(check.id, T("пропущено в режиме --quick", "skipped: --quick was given"),
                   T("запустите без --quick для полной проверки", "run without --quick for the full check"));
  }
  return std::nullopt;
}

}  // namespace

std::vector<CheckResult> RunChecks(const Registry& registry, const RunOptions& options,
                                   const CancelToken& cancel, ProgressSink& progress) {
  std::vector<CheckResult> results;
  results.reserve(registry.checks().size());
  const int total = static_cast<int>(registry.checks().size());
  int index = 0;
  for (const Check& check : registry.checks()) {
    ++index;
    progress.Begin(index, total, check.title);
    const auto start = std::chrono::steady_clock::now();
    CheckResult result;
    if (cancel.cancelled()) {
      result = NotRun(check);
    } else if (auto skipped = SkippedByFlags(check, options)) {
      result = std::move(*skipped);
    } else {
      CheckContext ctx(options, results, cancel, check,
                       [&progress](double f, const std::string& what) { progress.Update(f, what); });
      try {
        result = check.run(ctx);
      } catch (const std::exception& e) {
        result = Failed(check.id, T("внутренняя ошибка проверки", "internal error in the check"),
                        T("пришлите отчёт авторам lab_check", "please report this to the lab_check authors"),
                        e.what());
      } catch (...) {
        result = Failed(check.id, T("внутренняя ошибка проверки", "internal error in the check"), {},
                        "unknown exception");
      }
      // A check that returned after the interrupt did not finish its work.
      if (cancel.cancelled()) {
        CheckResult partial = NotRun(check);
        partial.measurements = std::move(result.measurements);
        partial.tables = std::move(result.tables);
        partial.data = std::move(result.data);
        result = std::move(partial);
      }
    }
    result.id = check.id;
    result.section = check.section;
    if (result.title.empty()) result.title = check.title;
    result.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.End(result);
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace labcheck

#include "runner/child_failure.h"

#include <fmt/format.h>

namespace labcheck {

Text DescribeChildFailure(const ChildOutcome& o) {
  if (!o.started) return T("не удалось запустить процесс: " + o.start_error, "could not start the process: " + o.start_error);
  if (o.abandoned && o.stuck_in_kernel) {
    return T("процесс застрял в драйвере NVIDIA (непрерываемый сон, состояние D) и не завершился даже по SIGKILL: "
             "нужна перезагрузка (" + o.abandoned_state + ")",
             "stuck in the NVIDIA driver (uninterruptible): the process did not end even on SIGKILL, reboot needed (" +
                 o.abandoned_state + ")");
  }
  if (o.abandoned) {
    return T("процесс не завершился даже по SIGKILL и брошен (" + o.abandoned_state + ")",
             "the process did not end even on SIGKILL and was given up on (" + o.abandoned_state + ")");
  }
  if (o.timed_out) {
    return T(fmt::format("процесс не ответил за {:.0f} с и был остановлен (завис?)", o.duration_s),
             fmt::format("the process did not finish within {:.0f} s and was killed (hung?)", o.duration_s));
  }
  if (o.cancelled) return T("остановлено пользователем (Ctrl-C)", "stopped by the user (Ctrl-C)");
  if (o.term_signal != 0) {
    return T("процесс упал: " + o.Describe(), "the process crashed: " + o.Describe());
  }
  return T(fmt::format("процесс завершился с ошибкой (код {})", o.exit_code),
           fmt::format("the process failed (exit code {})", o.exit_code));
}

CheckResult ChildFailure(std::string id, const ChildOutcome& outcome, Text hint) {
  return Failed(std::move(id), DescribeChildFailure(outcome), std::move(hint), outcome.Tail(30));
}

}  // namespace labcheck

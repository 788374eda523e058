// Cancellation: Ctrl-C (SIGINT) or SIGTERM asks the run to stop. The running check sees it through
// CancelToken and returns early; child processes are killed by the child runner; the report is
// still written with the remaining checks marked NOT RUN.
#pragma once
#include <atomic>

namespace labcheck {

class CancelToken {
 public:
  bool cancelled() const { return flag_ != nullptr && flag_->load(std::memory_order_relaxed); }
  static CancelToken Never() { return CancelToken(nullptr); }
  explicit CancelToken(const std::atomic<bool>* flag) : flag_(flag) {}

 private:
  const std::atomic<bool>* flag_;
};

// Installs SIGINT/SIGTERM handlers that set one process-wide flag, and returns a token on it.
// The second Ctrl-C restores the default action, so a stuck run can still be killed.
CancelToken InstallInterruptHandlers();
// For tests: raise the flag as a signal would, and lower it again.
void SimulateInterrupt();
void ResetInterrupt();
// Which signal stopped the run (0 if none).
int InterruptSignal();

}  // namespace labcheck

#include "runner/cancel.h"

#include <csignal>

namespace labcheck {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};

extern "C" void OnInterrupt(int sig) {
  // Only async-signal-safe work here: set flags; a second signal gets the default action back.
  g_signal.store(sig, std::memory_order_relaxed);
  g_interrupted.store(true, std::memory_order_relaxed);
  std::signal(sig, SIG_DFL);
}

}  // namespace

CancelToken InstallInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking poll() returns early and sees the flag
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return CancelToken(&g_interrupted);
}

void SimulateInterrupt() {
  g_signal.store(SIGINT);
  g_interrupted.store(true);
}

void ResetInterrupt() {
  g_signal.store(0);
  g_interrupted.store(false);
}

int InterruptSignal() { return g_signal.load(); }

}  // namespace labcheck

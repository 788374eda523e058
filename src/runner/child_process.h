// Running another program with a timeout, in its own process group, so that a hang or a crash is
// one check's FAIL and never the end of the run. argv is passed as a vector: no shell ever parses it.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runner/cancel.h"

namespace labcheck {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  std::vector<std::pair<std::string, std::string>> set_env;  // added or replaced
  std::vector<std::string> unset_env;
  std::string cwd;        // empty: the current directory
  std::string stdin_data; // written to the child's stdin, then closed
  double timeout_s = 60;
  size_t max_output_bytes = 8 << 20;  // per stream; the rest is dropped (and said so)
  // A handshake: when both are set, the child must print `ready_marker` on stdout within
  // `ready_within_s` seconds, or it is killed then (a dead interpreter costs its start-up budget,
  // not its whole timeout).
  std::string ready_marker;
  double ready_within_s = 0;
  // A child still there this long after SIGKILL cannot be killed: it sleeps uninterruptibly in a
  // driver (state D; after XID 45/79 or a GSP timeout, the NVIDIA driver). The supervisor stops
  // waiting, records the state the kernel shows and returns, so the run still ends with a report.
  double give_up_after_kill_s = 5;
  // Test seam: asks whether the child has ended, as waitpid(pid, status, WNOHANG) does (the
  // default when empty). No test can put a child into uninterruptible sleep; a reaper that never
  // reaps makes the supervisor see what it would see then.
  std::function<pid_t(pid_t pid, int* status)> try_reap;
};

struct ChildOutcome {
  bool started = false;
  std::string start_error;  // why it could not start (not found, not executable)
  bool timed_out = false;   // killed at its timeout (or at the handshake's: then not_ready too)
  bool not_ready = false;   // killed because ChildSpec::ready_marker did not come in time
  bool cancelled = false;   // killed because the run was interrupted
  bool abandoned = false;   // not reaped ChildSpec::give_up_after_kill_s after SIGKILL: given up on
  std::string abandoned_state;  // what /proc said of it then ("D (uninterruptible sleep) in …")
  bool stuck_in_kernel = false; // abandoned in state D: only a reboot ends it
  int exit_code = -1;       // when it exited normally
  int term_signal = 0;      // when a signal ended it (SIGSEGV, SIGKILL…)
  std::string out;
  std::string err;
  double duration_s = 0;

  bool exited_ok() const {
    return started && !timed_out && !cancelled && !abandoned && term_signal == 0 && exit_code == 0;
  }
  // "exit code 3", "killed by SIGSEGV (segmentation fault)", "timed out after 30 s"…, in English;
  // checks wrap it in their own bilingual reason.
  std::string Describe() const;
  // The last lines of stderr (or stdout when stderr is empty), for a FAIL's error text.
  std::string Tail(size_t max_lines = 20) const;
};

// Runs the child to completion, its timeout, or cancellation. On timeout or cancellation the whole
// process group gets SIGTERM, then SIGKILL two seconds later (torchrun's ranks go with it); a child
// that SIGKILL does not end is abandoned (ChildSpec::give_up_after_kill_s), never waited for.
ChildOutcome RunChild(const ChildSpec& spec, const CancelToken& cancel);

}  // namespace labcheck

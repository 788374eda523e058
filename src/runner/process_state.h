// What the kernel says a process is doing: its state letter from /proc/PID/stat and, where the
// kernel shows it, the function it sleeps in (/proc/PID/wchan). A child that outlives SIGKILL is
// in uninterruptible sleep (state D) inside a driver: after XID 45/79 or a GSP timeout that is the
// NVIDIA driver, and only a reboot frees it. The supervisor reads this to say so instead of
// waiting for a process that will never be reaped.
#pragma once
#include <optional>
#include <string>

#include <sys/types.h>

namespace labcheck {

struct ProcessState {
  char state = '?';   // R, S, D, Z, T, …; proc(5)
  std::string wchan;  // empty when the kernel hides it (0) or the file is unreadable
  bool uninterruptible() const { return state == 'D'; }
  // "D (uninterruptible sleep) in nv_wait_…": for a reason text, in English.
  std::string Describe() const;
};

// Parses one /proc/PID/stat line: the state is the first field after the command name, which
// sits in parentheses and may itself hold spaces and parentheses (so the last ')' ends it).
std::optional<char> StateFromStatLine(const std::string& stat_line);

// The state of `pid` under `proc_root` (tests point it at a folder of their own); nullopt when the
// process is gone or its stat file cannot be read.
std::optional<ProcessState> ReadProcessState(pid_t pid, const std::string& proc_root = "/proc");

}  // namespace labcheck

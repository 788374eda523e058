#include "runner/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "runner/process_state.h"

extern char** environ;

namespace labcheck {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> BuildEnvironment(const ChildSpec& spec) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& name : spec.unset_env) env.erase(name);
  for (const auto& [name, value] : spec.set_env) env[name] = value;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  bool Open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    return true;
  }
  void Close() {
    if (read_end >= 0) close(read_end);
    if (write_end >= 0) close(write_end);
    read_end = write_end = -1;
  }
};

const char* SignalDescription(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGABRT: return "SIGABRT (aborted)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGKILL: return "SIGKILL (killed; out of memory?)";
    case SIGTERM: return "SIGTERM";
    default: return nullptr;
  }
}

// The parent's ends of the child's three pipes, and how far each got.
struct Streams {
  Pipe in, out, err;
  bool out_open = true, err_open = true;
  bool truncated_out = false, truncated_err = false;
  size_t stdin_written = 0;
  void CloseAll() { in.Close(); out.Close(); err.Close(); }
};

// posix_spawn with the pipes as fds 0-2; returns its error number (0 on success).
int Spawn(const ChildSpec& spec, const Streams& streams, pid_t* pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, streams.in.read_end, 0);
  posix_spawn_file_actions_adddup2(&actions, streams.out.write_end, 1);
  posix_spawn_file_actions_adddup2(&actions, streams.err.write_end, 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group: the terminal's Ctrl-C reaches only us, and we can kill the whole tree.
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = BuildEnvironment(spec);
  auto argv = CStrings(argv_strings);
  auto envp = CStrings(env_strings);
  int rc = spec.argv[0].find('/') == std::string::npos
               ? posix_spawnp(pid, argv[0], &actions, &attr, argv.data(), envp.data())
               : posix_spawn(pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

void WriteSomeStdin(const ChildSpec& spec, Streams& s) {
  ssize_t n = write(s.in.write_end, spec.stdin_data.data() + s.stdin_written, spec.stdin_data.size() - s.stdin_written);
  if (n > 0) s.stdin_written += static_cast<size_t>(n);
  if (n < 0 && errno != EAGAIN) s.stdin_written = spec.stdin_data.size();
  if (s.stdin_written >= spec.stdin_data.size()) {
    close(s.in.write_end);
    s.in.write_end = -1;
  }
}

// Appends what `fd` has up to max_output_bytes; notices the end of the stream and the ready marker.
void ReadSome(int fd, const ChildSpec& spec, Streams& s, ChildOutcome& outcome, bool& ready) {
  char buffer[65536];
  ssize_t n = read(fd, buffer, sizeof buffer);
  bool is_out = fd == s.out.read_end;
  if (n <= 0) {
    if (n < 0 && errno == EINTR) return;
    (is_out ? s.out_open : s.err_open) = false;
    return;
  }
  std::string& sink = is_out ? outcome.out : outcome.err;
  bool& truncated = is_out ? s.truncated_out : s.truncated_err;
  size_t room = spec.max_output_bytes > sink.size() ? spec.max_output_bytes - sink.size() : 0;
  sink.append(buffer, std::min(room, static_cast<size_t>(n)));
  if (static_cast<size_t>(n) > room) truncated = true;
  if (!ready && is_out && outcome.out.find(spec.ready_marker) != std::string::npos) ready = true;
}

// Waits up to 100 ms for any stream; returns false when none is left to wait on.
bool PumpStreams(const ChildSpec& spec, Streams& s, ChildOutcome& outcome, bool& ready) {
  std::vector<pollfd> fds;
  if (s.out_open) fds.push_back({s.out.read_end, POLLIN, 0});
  if (s.err_open) fds.push_back({s.err.read_end, POLLIN, 0});
  if (s.in.write_end >= 0) fds.push_back({s.in.write_end, POLLOUT, 0});
  if (fds.empty()) return false;
  poll(fds.data(), fds.size(), 100);
  for (const auto& p : fds) {
    if (p.revents == 0) continue;
    if (p.fd == s.in.write_end) WriteSomeStdin(spec, s);
    else ReadSome(p.fd, spec, s, outcome, ready);
  }
  return true;
}

struct Reaping {
  bool reaped = false;
  int status = 0;
  bool killing = false;
  Clock::time_point kill_started;
  bool sigkilled = false;
  Clock::time_point sigkill_sent;
};

// The child's deadlines: cancel, timeout and handshake end it with SIGTERM, then SIGKILL 2 s later.
void EnforceDeadlines(pid_t pid, const ChildSpec& spec, const CancelToken& cancel, Clock::time_point start, bool ready,
                      Reaping& r, ChildOutcome& outcome) {
  const double elapsed = SecondsSince(start);
  if (!r.reaped && !r.killing) {
    if (cancel.cancelled()) outcome.cancelled = true;
    else if (elapsed > spec.timeout_s) outcome.timed_out = true;
    else if (!ready && elapsed > spec.ready_within_s) outcome.timed_out = outcome.not_ready = true;
    if (outcome.cancelled || outcome.timed_out) {
      kill(-pid, SIGTERM);
      r.killing = true;
      r.kill_started = Clock::now();
    }
  }
  if (r.killing && !r.reaped && SecondsSince(r.kill_started) > 2.0) {
    kill(-pid, SIGKILL);
    if (!r.sigkilled) r.sigkill_sent = Clock::now();
    r.sigkilled = true;
  }
}

// True when the child has outlived SIGKILL by the spec's grace: records what the kernel shows of
// it. A process in uninterruptible sleep never returns to user space, so waiting longer is waiting
// forever; the process stays behind (it cannot be helped), the run goes on.
bool GiveUpOnUnkillable(pid_t pid, const ChildSpec& spec, const Reaping& r, ChildOutcome& outcome) {
  if (r.reaped || !r.sigkilled || SecondsSince(r.sigkill_sent) <= spec.give_up_after_kill_s) return false;
  outcome.abandoned = true;
  const std::optional<ProcessState> state = ReadProcessState(pid);
  outcome.abandoned_state = state ? state->Describe() : "gone from /proc, yet not reaped";
  outcome.stuck_in_kernel = state && state->uninterruptible();
  return true;
}

pid_t TryReap(const ChildSpec& spec, pid_t pid, int* status) {
  return spec.try_reap ? spec.try_reap(pid, status) : waitpid(pid, status, WNOHANG);
}

// Feeds, reads and watches the child until it is reaped and its streams are closed; returns its wait status.
int Supervise(pid_t pid, const ChildSpec& spec, const CancelToken& cancel, Clock::time_point start, Streams& s,
              ChildOutcome& outcome) {
  Reaping r;
  const bool handshake = !spec.ready_marker.empty() && spec.ready_within_s > 0;
  bool ready = !handshake;
  while (!r.reaped || s.out_open || s.err_open) {
    if (!PumpStreams(spec, s, outcome, ready) && !r.reaped) usleep(20000);
    if (!r.reaped) {
      pid_t w = TryReap(spec, pid, &r.status);
      if (w == pid) r.reaped = true;
    }
    EnforceDeadlines(pid, spec, cancel, start, ready, r, outcome);
    if (GiveUpOnUnkillable(pid, spec, r, outcome)) break;
    // Grandchildren may keep our pipes open after the child is gone: stop reading once the
    // group is being killed and the child itself has been reaped.
    if (r.reaped && r.killing) break;
    if (r.reaped && (s.out_open || s.err_open) && SecondsSince(start) > spec.timeout_s + 5) {
      kill(-pid, SIGKILL);
      break;
    }
  }
  if (r.reaped && !r.killing) kill(-pid, SIGKILL);  // leftover grandchildren of a finished child
  return r.status;
}

}  // namespace

std::string ChildOutcome::Describe() const {
  if (!started) return "could not start: " + start_error;
  if (abandoned && stuck_in_kernel) {
    return fmt::format("stuck in the kernel, most likely the NVIDIA driver: not ended by SIGKILL ({}), reboot needed",
                       abandoned_state);
  }
  if (abandoned) return fmt::format("could not be killed: still there after SIGKILL ({})", abandoned_state);
  if (not_ready) return fmt::format("did not answer within {:.0f} s and was killed", duration_s);
  if (timed_out) return fmt::format("timed out after {:.0f} s and was killed", duration_s);
  if (cancelled) return "stopped by the user (interrupted)";
  if (term_signal != 0) {
    const char* name = SignalDescription(term_signal);
    return name ? fmt::format("killed by {}", name) : fmt::format("killed by signal {}", term_signal);
  }
  return fmt::format("exit code {}", exit_code);
}

std::string ChildOutcome::Tail(size_t max_lines) const {
  const std::string& text = err.find_first_not_of(" \n\t") != std::string::npos ? err : out;
  size_t end = text.find_last_not_of(" \n\t");
  if (end == std::string::npos) return {};
  size_t pos = end + 1;
  size_t lines = 0;
  while (pos > 0 && lines < max_lines) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) {
      pos = 0;
      break;
    }
    ++lines;
    if (lines == max_lines) ++pos;
  }
  return text.substr(pos, end + 1 - pos);
}

ChildOutcome RunChild(const ChildSpec& spec, const CancelToken& cancel) {
  ChildOutcome outcome;
  const auto start = Clock::now();
  if (spec.argv.empty()) {
    outcome.start_error = "empty command";
    return outcome;
  }
  Streams s;
  if (!s.in.Open() || !s.out.Open() || !s.err.Open()) {
    outcome.start_error = std::string("pipe: ") + std::strerror(errno);
    s.CloseAll();
    return outcome;
  }
  pid_t pid = -1;
  const int rc = Spawn(spec, s, &pid);
  close(s.in.read_end); s.in.read_end = -1;
  close(s.out.write_end); s.out.write_end = -1;
  close(s.err.write_end); s.err.write_end = -1;
  if (rc != 0) {
    outcome.start_error = fmt::format("{}: {}", spec.argv[0], std::strerror(rc));
    s.CloseAll();
    return outcome;
  }
  outcome.started = true;

  // Feed stdin without blocking on a child that does not read it.
  fcntl(s.in.write_end, F_SETFL, O_NONBLOCK);
  if (spec.stdin_data.empty()) {
    close(s.in.write_end);
    s.in.write_end = -1;
  }
  const int status = Supervise(pid, spec, cancel, start, s, outcome);
  s.CloseAll();

  if (!outcome.abandoned && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (!outcome.abandoned && WIFSIGNALED(status)) outcome.term_signal = WTERMSIG(status);
  if (s.truncated_out) outcome.out += "\n[output truncated]\n";
  if (s.truncated_err) outcome.err += "\n[output truncated]\n";
  outcome.duration_s = SecondsSince(start);
  return outcome;
}

}  // namespace labcheck

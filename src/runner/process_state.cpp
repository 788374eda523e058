#include "runner/process_state.h"

#include <fmt/format.h>

#include "platform/files.h"

namespace labcheck {
namespace {

// ReadFile reads to EOF, as procfs files (size 0) need; "" when unreadable (the process is gone).
std::string FirstLine(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  return text.ok() ? text->substr(0, text->find('\n')) : std::string();
}

const char* StateName(char state) {
  switch (state) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "uninterruptible sleep";
    case 'Z': return "zombie";
    case 'T': return "stopped";
    case 't': return "stopped by a debugger";
    case 'X': return "dead";
    case 'I': return "idle";
    default: return "unknown state";
  }
}

}  // namespace

std::string ProcessState::Describe() const {
  std::string text = fmt::format("{} ({})", state, StateName(state));
  if (!wchan.empty()) text += " in " + wchan;
  return text;
}

std::optional<char> StateFromStatLine(const std::string& stat_line) {
  const size_t close = stat_line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  const size_t state = stat_line.find_first_not_of(' ', close + 1);
  if (state == std::string::npos) return std::nullopt;
  return stat_line[state];
}

std::optional<ProcessState> ReadProcessState(pid_t pid, const std::string& proc_root) {
  const std::string folder = fmt::format("{}/{}", proc_root, pid);
  const std::optional<char> state = StateFromStatLine(FirstLine(folder + "/stat"));
  if (!state) return std::nullopt;
  ProcessState out;
  out.state = *state;
  out.wchan = FirstLine(folder + "/wchan");
  if (out.wchan == "0") out.wchan.clear();  // the kernel's "not sleeping" or "hidden"
  return out;
}

}  // namespace labcheck

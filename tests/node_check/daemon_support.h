// Daemons the end-to-end tests start on this machine (Slurm's, node_exporter): found in the
// usual folders, started in the foreground in their own process group with their output in a
// log file, and stopped (SIGTERM, then SIGKILL) whatever happened to the test.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace labcheck::node_check::testing {

// The program's path, or "" when it is not installed.
inline std::string Which(const std::string& program) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/bin", "/usr/local/sbin"}) {
    const std::string path = std::string(dir) + "/" + program;
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

// A daemon in the foreground, its output in `log`, in its own process group.
inline pid_t Spawn(const std::vector<std::string>& argv, const std::string& log, const std::vector<std::string>& env) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    for (const std::string& e : env) putenv(strdup(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

inline void Stop(pid_t pid) {
  if (pid <= 0) return;
  kill(-pid, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace labcheck::node_check::testing

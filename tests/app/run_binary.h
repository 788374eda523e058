// The built lab_check run through the shell as a user types it (`args` as on the command line),
// stdout and stderr together: for the command-line tests of the subcommands (burn, memtest).
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace labcheck::testing {

struct Ran {
  int code;         // the exit code; -1 when it did not exit normally
  std::string out;  // stdout and stderr, interleaved as written
};

inline Ran RunBinary(const std::string& args) {
  const std::string command = std::string(LAB_CHECK_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (pipe != nullptr && fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace labcheck::testing

// The CUDA toolkit's own ptxas, for the tests that assemble lab_check's embedded PTX for the GPUs
// people train on (a PTX typo must not hide behind the simulator, which only parses it). The build
// never needs the toolkit; where it is absent those tests skip.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace labcheck::testing {

// $CUDA_HOME or $CUDA_PATH, /usr/local/cuda, then PATH; "" when absent.
inline std::string FindPtxas() {
  namespace fs = std::filesystem;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(var); home != nullptr && fs::exists(fs::path(home) / "bin/ptxas"))
      return (fs::path(home) / "bin/ptxas").string();
  if (fs::exists("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  if (const char* path = std::getenv("PATH")) {
    const std::string list = path;
    for (size_t at = 0; at <= list.size();) {
      const size_t colon = std::min(list.find(':', at), list.size());
      const fs::path candidate = fs::path(list.substr(at, colon - at)) / "ptxas";
      if (colon > at && access(candidate.c_str(), X_OK) == 0) return candidate.string();
      at = colon + 1;
    }
  }
  return "";
}

struct Assembled {
  int exit_code = -1;
  std::string output;  // ptxas -v: stdout and stderr together
};

// `ptx_file` assembled for `arch` ("sm_90") with -v, the code thrown away.
inline Assembled Assemble(const std::string& ptxas, const std::string& ptx_file, const std::string& arch) {
  Assembled result;
  const std::string command = "'" + ptxas + "' -arch=" + arch + " -v '" + ptx_file + "' -o /dev/null 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) result.output += buffer;
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace labcheck::testing

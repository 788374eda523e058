// Runs the real build/lab_check over the simulated NVIDIA libraries (tests/sim/README.md).
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/child_process.h"

namespace labcheck::node_check::testing {

inline std::string BuildDir() { return std::filesystem::path(LAB_CHECK_BINARY).parent_path().string(); }
inline std::string SimDir() { return BuildDir() + "/sim-nvidia"; }
inline bool SimPresent() { return std::filesystem::exists(SimDir() + "/libcuda.so.1"); }
inline std::string Profile(const std::string& name) {
  return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/" + name;
}

struct Run {
  ChildOutcome outcome;
  nlohmann::json json;  // the --json line, when there was one
  std::string line;     // the first line of stdout
};

// lab_check node-check ARGS on `profile` (a file name under tests/sim/machines/), --lang en.
// `empty_environment`: as slurmd starts HealthCheckProgram, with nothing but the simulator's two
// variables and `env` (`env -i`: no PATH, no HOME).
Run NodeCheck(const std::string& profile, std::vector<std::string> args = {},
              std::vector<std::pair<std::string, std::string>> env = {}, bool empty_environment = false);

}  // namespace labcheck::node_check::testing

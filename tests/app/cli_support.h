// Running the built binary as a user does, for the end-to-end tests of tests/app.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/files.h"
#include "runner/child_process.h"

namespace labcheck::cli_testing {

inline ChildOutcome RunLabCheck(const std::string& cwd, std::vector<std::string> args, double timeout_s = 240,
                                std::vector<std::pair<std::string, std::string>> env = {}) {
  ChildSpec spec;
  spec.argv = {LAB_CHECK_BINARY};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = cwd;
  spec.timeout_s = timeout_s;
  spec.set_env = std::move(env);
  return RunChild(spec, CancelToken::Never());
}

// Writes an executable script.
inline void WriteScript(const std::string& path, const std::string& text) {
  (void)WriteFileAtomically(path, text);
  (void)chmod(path.c_str(), 0755);
}

inline const nlohmann::json* FindCheck(const nlohmann::json& report, const std::string& id) {
  for (const auto& c : report["checks"]) {
    if (c.value("id", "") == id) return &c;
  }
  return nullptr;
}

}  // namespace labcheck::cli_testing

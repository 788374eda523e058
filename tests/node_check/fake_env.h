// An environment for the tests: the variables given, nothing else (slurmd's empty environment is
// the empty map).
#pragma once
#include <map>
#include <optional>
#include <string>

#include "node_check/slurm/slurm_drain.h"

namespace labcheck::node_check::testing {

inline EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

}  // namespace labcheck::node_check::testing

// An interpreter that does not answer: the handshake of a probe (its "alive" line once its imports
// are done) did not come within the start-up budget. Once that is known, every later probe under
// the same interpreter is a SKIP with this reason and hint instead of another full timeout.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "probes/python_probe.h"

namespace labcheck::probes {

struct Unresponsive {
  std::string python;  // the interpreter's path as the report shows it
  std::string stage;   // what it was doing when it stopped: "import torch"; "" for the start-up itself
  double waited_s = 0;
  // Not hung but gone: the interpreter could not start, or ended before its handshake ("exit code
  // 127", "could not start: No such file or directory"). Every later probe would end the same way.
  std::string ended;

  // "the interpreter /x/python did not answer within 30 s: `import torch` hangs"
  Text Reason() const;
  // How to see it by hand, and what usually causes it.
  Text Hint() const;
  nlohmann::json ToJson() const;
  static std::optional<Unresponsive> FromJson(const nlohmann::json& j);
};

// Unresponsive when the run missed its handshake (ProbeSpec::startup_budget_s); the stage is the
// last LABCHECK_STAGE line the probe printed.
std::optional<Unresponsive> UnresponsiveIn(const ProbeRun& run, const std::string& python);

// For a probe that imports only the standard library before its handshake (env_packages.py): the
// interpreter could not start, or failed (an exit code, a signal) without the handshake and without
// a result, so it is broken (a venv whose base Python is gone, a missing libpython, not a Python at
// all), not the probe.
std::optional<Unresponsive> EndedBeforeHandshake(const ProbeRun& run, const std::string& python);

// The key under which a check's result data records it ("interpreter_unresponsive").
inline constexpr const char* kUnresponsiveKey = "interpreter_unresponsive";

}  // namespace labcheck::probes

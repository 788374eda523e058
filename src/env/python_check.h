// env.python: the interpreter the probes run under, and which course packages it has. The probe
// runs as a child process (src/probes/py/env_packages.py); assessment is a pure function of its
// validated result, so tests cover every verdict without a Python.
#pragma once
#include <string>

#include "core/check_result.h"
#include "env/python_facts.h"
#include "runner/check.h"

namespace labcheck::env {

struct PythonContext {
  std::string python_path;             // the interpreter that was run (RunOptions::python)
  bool nvidia_driver_present = false;  // /proc/driver/nvidia/version exists
};

// How long the interpreter may take to start the probe's code (before --timeout-scale).
inline constexpr double kPythonStartupBudgetS = 30;

CheckResult AssessPython(const PythonFacts& facts, const PythonContext& context);

// The whole check: SKIP without a Python, FAIL when the probe crashes or prints garbage.
CheckResult RunPythonCheck(CheckContext& ctx);

}  // namespace labcheck::env

// env.python: the interpreter the probes run under, and which course packages it has. The probe
// runs as a child process (src/probes/py/env_packages.py); assessment is a pure function of its
// validated result, so tests cover every verdict without a Python.
#pragma once
#include <string>

#include "core/check_result.h"
#include "env/python_facts.h"
#include "runner/check.h"

namespace labcheck::env {

// Whether torch's build fits the machine's cards is env.compat's to say, which reads the driver's
// cards from gpu.inventory (it runs after it); this check judges the interpreter and its packages.
struct PythonContext {
  std::string python_path;  // the interpreter that was run (RunOptions::python)
};

CheckResult AssessPython(const PythonFacts& facts, const PythonContext& context);

// The whole check, through the run's Interpreter (RunOptions::interpreter): SKIP without a Python,
// FAIL when the probe crashes or prints garbage, or when the interpreter or its `import torch`
// does not answer (probes/interpreter.h; the later Python checks then SKIP with the same words).
CheckResult RunPythonCheck(CheckContext& ctx);

}  // namespace labcheck::env

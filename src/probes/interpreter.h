// The chosen interpreter of one run, and the one place in lab_check that starts it: every probe and
// the site-packages query for the library search go through here (a test keeps it so:
// tests/probes/one_owner_test.cpp).
//
// It is started once, on the first question, by interpreter_start.py: a handshake after the
// standard library alone (kStartupBudgetS), which also says where its site-packages are; then, for a
// part that needs torch and when torch is installed, a second handshake after `import torch`
// (kTorchImportBudgetS). What it learns holds for the rest of the run. Once it is known not to
// answer (hung, or gone before its handshake, at any question), every later question is answered
// at once with the same Unresponsive, and nothing is started again: a dead interpreter costs one
// start-up budget per run, however many parts ask.
//
// One thread asks at a time (the runner runs checks in order).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check_result.h"
#include "core/text.h"
#include "probes/python_probe.h"
#include "probes/unresponsive.h"
#include "runner/cancel.h"

namespace labcheck {
struct RunOptions;
}

namespace labcheck::probes {

// How long the interpreter may take to run its first line, before --timeout-scale: one that has
// not by then is stuck (a dead network mount, a hung site hook), and waiting longer buys nothing.
inline constexpr double kStartupBudgetS = 30;
// How long `import torch` may take, before --timeout-scale: tens of seconds on a cold disk or a
// busy machine, never minutes.
inline constexpr double kTorchImportBudgetS = 90;

// What a question needs of the interpreter before its own probe runs.
enum class Needs {
  Interpreter,  // it answers (the probe imports only the standard library)
  Torch,        // and `import torch` comes back (the probe imports torch)
};

// One part's answer from the interpreter.
struct Asked {
  // Set: the interpreter does not answer, and `run` did not happen (or is the run that found it).
  std::optional<Unresponsive> unresponsive;
  // This question is the one that learned it: that part FAILs, the later ones SKIP.
  bool found_now = false;
  ProbeRun run;  // the probe's run; not run when `unresponsive` was known before
};

// The site-packages folders, or why there are none to search (then `unknown` is set).
struct SitePackages {
  std::vector<std::string> folders;
  std::optional<Text> unknown;
};

class Interpreter {
 public:
  // `python` is resolved (ResolvePython) or empty when none was found; the budgets are multiplied
  // by `timeout_scale` (--timeout-scale).
  Interpreter(std::string python, double timeout_scale) : python_(std::move(python)), scale_(timeout_scale) {}

  const std::string& python() const { return python_; }
  double timeout_scale() const { return scale_; }

  // Starts it as far as `needs` (once per level per run); nullopt when it answered.
  std::optional<Unresponsive> Start(Needs needs, const CancelToken& cancel);

  // Runs a probe (spec.python is set here): at once with the known Unresponsive when it does not
  // answer, otherwise after Start(needs). A probe that misses its own handshake
  // (ProbeSpec::startup_budget_s) makes the interpreter known unresponsive from then on.
  Asked Run(ProbeSpec spec, Needs needs, const CancelToken& cancel);

  // From the start's answer (starting it if need be): the same folders for the whole run.
  SitePackages FindSitePackages(const CancelToken& cancel);

  const std::optional<Unresponsive>& unresponsive() const { return unresponsive_; }
  // How many interpreters it started (the start's and the probes'), for tests.
  int started() const { return started_; }

 private:
  struct StartAnswer {
    std::vector<std::string> site_packages;
    bool torch_installed = false;
  };
  std::optional<Unresponsive> StartInterpreter(const CancelToken& cancel);
  std::optional<Unresponsive> StartTorch(const CancelToken& cancel);
  ProbeRun RunStartProbe(bool import_torch, const CancelToken& cancel);

  std::string python_;
  double scale_ = 1;
  bool interpreter_started_ = false;
  bool torch_started_ = false;
  std::optional<StartAnswer> answer_;       // the start's result, when it gave a valid one
  std::string no_answer_;                   // why not, when it answered its handshake but no result
  std::optional<Unresponsive> unresponsive_;
  int started_ = 0;
};

// The folders from the start's answer (site.getsitepackages(), the user site, sys.path), keeping
// those that end in site-packages or dist-packages, in order, without duplicates.
std::vector<std::string> SitePackagesFromAnswer(const nlohmann::json& paths);

// The run's interpreter (RunOptions::interpreter); a run made without one is a programming error
// and throws, which the runner turns into that check's FAIL.
Interpreter& ChosenInterpreter(const RunOptions& options);

// A part's result when the interpreter does not answer: FAIL for the part that found it, SKIP for
// every other, with the same reason and hint, and the Unresponsive under kUnresponsiveKey.
CheckResult UnresponsiveResult(const std::string& check_id, const Unresponsive& unresponsive, bool found_now,
                               const std::string& error = {});

}  // namespace labcheck::probes

// A check: one unit of the lab check with a name, what it needs, a time budget and a run function
// that returns its result (nvbandwidth's testcase: filter() is `needs` + the check's own SKIPs).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/check_result.h"
#include "core/text.h"
#include "runner/cancel.h"

namespace labcheck {

namespace probes {
class Interpreter;  // src/probes/interpreter.h; the runner only carries it to the checks
}

struct RunOptions {
  bool quick = false;      // environment plus one short measurement each, no smoke tests
  bool skip_dist = false;  // nothing that uses torch.distributed or NCCL
  Lang lang = Lang::Ru;
  std::string python;         // interpreter for the probes, resolved (absolute path) or empty
  // The one owner of that interpreter for the whole run: every part that needs Python asks it, so
  // what it learned (that it does not answer, where its site-packages are) is learned once.
  std::shared_ptr<probes::Interpreter> interpreter;
  double timeout_scale = 1;   // multiplies every time budget (slow machines, debuggers)
  std::string self_exe;       // this binary, for checks that re-run it as a child
};

// When a check runs.
enum class QuickMode {
  Full,       // runs in --quick too, doing its full work
  Shortened,  // runs in --quick with less work (it reads options.quick)
  FullOnly,   // SKIP under --quick
};

struct Check;

class CheckContext {
 public:
  CheckContext(const RunOptions& options, const std::vector<CheckResult>& earlier,
               const CancelToken& cancel, const Check& check,
               std::function<void(double, const std::string&)> progress)
      : options_(options), earlier_(earlier), cancel_(cancel), check_(check),
        progress_(std::move(progress)) {}

  const RunOptions& options() const { return options_; }
  // Results of the checks that ran before this one (in registry order); nullptr if `id` did not
  // run. Throws std::logic_error for an id the check does not declare in Check::reads, its own
  // included.
  const CheckResult* Earlier(const std::string& id) const;
  const CancelToken& cancel() const { return cancel_; }
  bool cancelled() const { return cancel_.cancelled(); }
  // This check's time budget in seconds, already multiplied by --timeout-scale.
  double budget_s() const;
  // Updates the live progress line: fraction in [0, 1] (negative = unknown), and what it does now.
  void Progress(double fraction, const std::string& what) const {
    if (progress_) progress_(fraction, what);
  }

 private:
  const RunOptions& options_;
  const std::vector<CheckResult>& earlier_;
  const CancelToken& cancel_;
  const Check& check_;
  std::function<void(double, const std::string&)> progress_;
};

struct Check {
  std::string id;       // "cpu.memory_bandwidth" (docs/report-schema.md)
  std::string section;  // "environment", "cpu", "gpu", "interconnect", "smoke"
  Text title;
  QuickMode quick = QuickMode::Full;
  bool distributed = false;  // SKIP under --skip-dist
  double budget_s = 60;      // time budget; child processes of this check get it as timeout
  std::function<CheckResult(CheckContext&)> run;
  // The checks whose results this one reads through CheckContext::Earlier: --only runs them too
  // (runner/check_selection.h). Reading an undeclared one is an internal error, so the list
  // cannot fall behind the code.
  std::vector<std::string> reads = {};
};

// The ordered list of checks; modules add theirs through their Register*Checks(Registry&).
class Registry {
 public:
  void Add(Check check) { checks_.push_back(std::move(check)); }
  const std::vector<Check>& checks() const { return checks_; }

 private:
  std::vector<Check> checks_;
};

}  // namespace labcheck

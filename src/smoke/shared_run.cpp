#include "smoke/shared_run.h"

#include <fmt/format.h>

#include "probes/python_probe.h"
#include "runner/child_failure.h"
#include "smoke/probe_lines.h"

namespace labcheck::smoke {
namespace {

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string joined;
  for (const auto& item : items) {
    if (!joined.empty()) joined += separator;
    joined += item;
  }
  return joined;
}

probes::ProbeSpec SpecFor(const SharedRunRequest& request, const std::vector<const SmokeTest*>& tests) {
  std::vector<std::string> names, deferred, budgets;
  double timeout_s = request.startup_budget_s * request.timeout_scale;
  for (const SmokeTest* test : tests) {
    names.push_back(test->name);
    const double budget_s = test->budget_s * request.timeout_scale;
    if (request.deferred.count(test->name)) {
      deferred.push_back(test->name);  // a precheck only: a find_spec and a look at torch
    } else {
      budgets.push_back(fmt::format("{}={:g}", test->name, budget_s));
      timeout_s += budget_s;
    }
  }
  probes::ProbeSpec spec;
  spec.probe = "smoke_run.py";
  spec.args = {"--tests", Join(names, ","), "--defer", Join(deferred, ","), "--budgets", Join(budgets, ",")};
  spec.timeout_s = timeout_s;
  spec.startup_budget_s = request.startup_budget_s * request.timeout_scale;
  spec.set_env = request.set_env;
  return spec;
}

// Why the tests after a failed interpreter got no result, when no single test is to blame.
TestOutcome NobodysFault(const ChildOutcome& process, const SharedRunLines& lines) {
  Text why = DescribeChildFailure(process);
  if (process.exited_ok()) {
    why = T("проба завершилась, не сообщив результат этого теста", "the probe ended without this test's result");
  } else if (!lines.begun.empty() && lines.begun.back() == kTorchImportStage) {
    why = T("интерпретатор упал при импорте torch: " + why.ru, "the interpreter died importing torch: " + why.en);
  }
  std::string error = process.Tail(30);
  for (const auto& problem : lines.problems) error += "\nunreadable probe line: " + problem;
  return TestOutcome::Lost(why, error, process.cancelled);
}

}  // namespace

SharedRunResult RunSharedTests(const SharedRunRequest& request, probes::Interpreter& python, const CancelToken& cancel) {
  SharedRunResult run;
  std::vector<const SmokeTest*> pending = request.tests;
  while (!pending.empty()) {
    probes::Asked asked = python.Run(SpecFor(request, pending), probes::Needs::Torch, cancel);
    // No alive line within the start-up budget, now or before: the interpreter (or `import
    // torch`) hangs, and a fresh one would hang the same way.
    if (asked.unresponsive) {
      run.unresponsive = asked.unresponsive;
      run.found_now = asked.found_now;
      if (asked.found_now && asked.run.process.started) ++run.interpreters;
      for (const SmokeTest* test : pending)
        run.outcomes[test->name] = TestOutcome::Lost(asked.unresponsive->Reason(), asked.run.process.Tail(30));
      break;
    }
    const probes::ProbeRun& probe = asked.run;
    ++run.interpreters;
    const SharedRunLines lines = ParseSharedRunOutput(probe.process.out);
    if (lines.facts && run.facts.empty()) run.facts = *lines.facts;

    std::vector<const SmokeTest*> missing;
    for (const SmokeTest* test : pending) {
      auto found = lines.results.find(test->name);
      if (found != lines.results.end()) {
        run.outcomes[test->name] = TestOutcome::Of(found->second);
      } else {
        missing.push_back(test);
      }
    }
    if (missing.empty()) break;

    // A test that began and never reported took the interpreter down (or hung past the
    // timeout): it FAILs, and the ones after it get a fresh interpreter. Anything else (no start,
    // Ctrl-C, a crash while importing torch) would only repeat, so the rest share one verdict.
    const auto culprit = lines.Unfinished();
    const ChildOutcome& process = probe.process;
    const bool retry = culprit && *culprit != kTorchImportStage && process.started && !process.cancelled &&
                       !process.exited_ok() && !cancel.cancelled();
    if (!retry) {
      const TestOutcome shared = NobodysFault(process, lines);
      for (const SmokeTest* test : missing) run.outcomes[test->name] = shared;
      break;
    }
    const Text how = DescribeChildFailure(process);
    run.outcomes[*culprit] = TestOutcome::Lost(
        T("во время этого теста " + how.ru, "while this test ran, " + how.en), process.Tail(30));
    pending.clear();
    for (const SmokeTest* test : missing) {
      if (test->name != *culprit) pending.push_back(test);
    }
  }
  return run;
}

}  // namespace labcheck::smoke

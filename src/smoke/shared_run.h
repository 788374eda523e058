// Runs the single-process smoke tests in as few interpreters as isolation allows (smoke_run.py):
// one for all of them, and when a test takes its interpreter down (a crash, or a hang that only
// the timeout could end), that test FAILs and the tests after it continue in a fresh one.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/interpreter.h"
#include "runner/cancel.h"
#include "smoke/smoke_catalog.h"
#include "smoke/test_outcome.h"

namespace labcheck::smoke {

struct SharedRunRequest {
  std::vector<const SmokeTest*> tests;  // in the order they run
  std::set<std::string> deferred;       // only prechecked: {"status": "defer"} if they can run
  double timeout_scale = 1;
  // `import torch` and its CUDA start-up, before any test's own budget starts; also the handshake:
  // a probe not alive by then is killed and the interpreter counts as unresponsive.
  double startup_budget_s = probes::kTorchImportBudgetS;
  std::vector<std::pair<std::string, std::string>> set_env;
};

struct SharedRunResult {
  std::map<std::string, TestOutcome> outcomes;  // one per requested test
  nlohmann::json facts = nlohmann::json::object();  // torch and GPU facts (smoke_common.torch_facts)
  int interpreters = 0;                             // how many processes it took
  // The interpreter does not answer (known before, or found by this run's handshake): nothing ran.
  std::optional<probes::Unresponsive> unresponsive;
  bool found_now = false;  // this run is the one that found it
};

// Every probe goes through `python`, the run's interpreter: known unresponsive, it starts nothing.
SharedRunResult RunSharedTests(const SharedRunRequest& request, probes::Interpreter& python, const CancelToken& cancel);

}  // namespace labcheck::smoke

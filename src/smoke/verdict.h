// Turns what a smoke test's probe produced into the check's result: a lost process is a FAIL
// with the crash or hang in words, a probe's SKIP keeps its reason and gets a hint, a probe's error
// becomes a FAIL with the error text and a hint, and a "ran" result goes to the test's judge.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/check_result.h"
#include "facts/run_facts.h"
#include "smoke/smoke_catalog.h"
#include "smoke/test_outcome.h"

namespace labcheck::smoke {

// `facts`: torch and GPU facts from the shared interpreter (may be empty). `python`: the
// interpreter's path, named in SKIPs about it. `run`: the report's facts (src/facts/), from which a
// test that ran on the CPU or skipped for want of a GPU says why PyTorch had none, and is a WARN
// where the machine has cards PyTorch left idle; nullptr where they are not known (multi-node
// launches), and the probe's own observation is said instead.
CheckResult JudgeOutcome(const SmokeTest& test, const TestOutcome& outcome, const nlohmann::json& facts,
                         const std::string& python, const facts::RunFacts* run = nullptr);

}  // namespace labcheck::smoke

// One lab_check run's smoke tests: runs each group of probes once and hands every check its
// test's outcome. The first check of the shared group starts the interpreter for all of them and
// the others read the cached outcome; an isolated test whose precheck passed is run alone when its
// own check asks; each distributed test is its own launch. Every probe goes through the run's
// interpreter (RunOptions::interpreter), which knows when it does not answer.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runner/check.h"
#include "smoke/shared_run.h"
#include "smoke/smoke_catalog.h"
#include "smoke/test_outcome.h"

namespace labcheck::smoke {

class SmokeSession {
 public:
  // `extra_env` reaches every probe; the tests plant failures through it (LABCHECK_TEST_*).
  explicit SmokeSession(std::vector<std::pair<std::string, std::string>> extra_env = {})
      : extra_env_(std::move(extra_env)) {}

  TestOutcome Outcome(const SmokeTest& test, CheckContext& ctx);
  // Torch and GPU facts from the shared interpreter; empty until it has run.
  const nlohmann::json& facts() const { return shared_ ? shared_->facts : empty_facts_; }
  // How many interpreters the shared group took (0 until it has run).
  int shared_interpreters() const { return shared_ ? shared_->interpreters : 0; }
  // Whether the test's outcome is known already, with nothing left to start for it.
  bool HasOutcome(const SmokeTest& test) const;

 private:
  void RunSharedGroup(CheckContext& ctx);
  std::vector<std::pair<std::string, std::string>> Env() const;

  std::vector<std::pair<std::string, std::string>> extra_env_;
  std::optional<SharedRunResult> shared_;
  nlohmann::json empty_facts_ = nlohmann::json::object();
};

}  // namespace labcheck::smoke

// The single-process probes under a real interpreter with torch (Debian's python3-torch in CI):
// the Llama path runs its tiny CPU configuration, packages that are missing SKIP with the right
// reason, and planted crashes and slow tests end as one test's FAIL, not the group's.
#include <gtest/gtest.h>

#include "smoke/shared_run.h"
#include "smoke/verdict.h"
#include "torch_python.h"

namespace labcheck::smoke {
namespace {

using testing::NoTorchPython;
using testing::PythonHas;
using testing::TorchPython;
using testing::TorchVersion;

#define REQUIRE_TORCH_PYTHON(var)                                               \
  const std::string var = TorchPython();                                        \
  if (var.empty()) GTEST_SKIP() << "no Python with torch (set LABCHECK_TEST_PYTHON)"

SharedRunRequest AllSingleProcessTests() {
  SharedRunRequest request;
  for (const SmokeTest& test : SmokeTests()) {
    if (test.launch == Launch::Torchrun) continue;
    request.tests.push_back(&test);
    if (test.launch == Launch::Isolated) request.deferred.insert(test.name);
  }
  return request;
}

CheckResult Verdict(const SharedRunResult& run, const std::string& name, const std::string& python) {
  return JudgeOutcome(*FindSmokeTest(name), run.outcomes.at(name), run.facts, python);
}

TEST(SmokePython, OneInterpreterRunsOrSkipsEverySingleProcessTest) {
  REQUIRE_TORCH_PYTHON(python);
  probes::Interpreter interpreter(python, 1);
  SharedRunResult run = RunSharedTests(AllSingleProcessTests(), interpreter, CancelToken::Never());
  EXPECT_EQ(run.interpreters, 1);
  ASSERT_TRUE(run.facts.contains("torch_version"));
  EXPECT_TRUE(run.facts["torch_version"].is_string());

  CheckResult llama = Verdict(run, "llama_train", python);
  ASSERT_EQ(llama.outcome, Outcome::Pass) << llama.reason.en << "\n" << llama.error;
  const bool gpu = !run.facts["devices"].empty();
  EXPECT_NE(llama.Find(gpu ? "smoke.llama.tokens_per_s" : "smoke.llama_cpu_tiny.tokens_per_s"), nullptr);

  if (!PythonHas(python, "transformers")) {
    for (const char* name : {"hf_llama", "lora", "qlora"}) {
      CheckResult r = Verdict(run, name, python);
      EXPECT_EQ(r.outcome, Outcome::Skip) << name;
      EXPECT_EQ(r.reason.en, "package transformers is not installed") << name;
      EXPECT_FALSE(r.hint.empty()) << name;
    }
  }
  if (!PythonHas(python, "vllm")) {
    CheckResult r = Verdict(run, "vllm", python);
    EXPECT_EQ(r.outcome, Outcome::Skip);
    EXPECT_EQ(r.reason.en, "package vllm is not installed");
    EXPECT_FALSE(r.tables.empty());
  }
  if (!PythonHas(python, "unsloth")) {
    EXPECT_EQ(Verdict(run, "unsloth", python).reason.en, "package unsloth is not installed");
  }
  if (TorchVersion(python) < std::make_pair(2, 0)) {
    EXPECT_EQ(Verdict(run, "torch_compile", python).reason.en.find("needs PyTorch 2.0 or newer"), 0u);
  }
  if (!gpu) {
    EXPECT_EQ(Verdict(run, "flash_attention", python).reason.en, "needs a GPU: PyTorch sees no CUDA device");
    CheckResult triton = Verdict(run, "triton", python);
    EXPECT_EQ(triton.outcome, Outcome::Skip);
  }
}

SharedRunRequest ThreeTests(std::vector<SmokeTest>& storage, double budget_s) {
  storage = {*FindSmokeTest("llama_train"), *FindSmokeTest("hf_llama"), *FindSmokeTest("lora")};
  SharedRunRequest request;
  for (auto& test : storage) {
    test.budget_s = budget_s;
    request.tests.push_back(&test);
  }
  return request;
}

TEST(SmokePython, ACrashingTestFailsAloneAndTheOthersStillRun) {
  REQUIRE_TORCH_PYTHON(python);
  std::vector<SmokeTest> tests;
  SharedRunRequest request = ThreeTests(tests, 120);
  request.set_env = {{"LABCHECK_TEST_CRASH_TEST", "llama_train"}};
  probes::Interpreter interpreter(python, 1);
  SharedRunResult run = RunSharedTests(request, interpreter, CancelToken::Never());
  EXPECT_EQ(run.interpreters, 2);
  CheckResult llama = Verdict(run, "llama_train", python);
  EXPECT_EQ(llama.outcome, Outcome::Fail);
  EXPECT_NE(llama.reason.en.find("SIGSEGV"), std::string::npos) << llama.reason.en;
  EXPECT_TRUE(run.outcomes.at("hf_llama").result);
  EXPECT_TRUE(run.outcomes.at("lora").result);
}

TEST(SmokePython, ATestOverItsBudgetIsStoppedAndTheNextOneRuns) {
  REQUIRE_TORCH_PYTHON(python);
  std::vector<SmokeTest> tests;
  SharedRunRequest request = ThreeTests(tests, 2);
  request.set_env = {{"LABCHECK_TEST_SLOW_TEST", "llama_train"}};
  probes::Interpreter interpreter(python, 1);
  SharedRunResult run = RunSharedTests(request, interpreter, CancelToken::Never());
  EXPECT_EQ(run.interpreters, 1);
  CheckResult llama = Verdict(run, "llama_train", python);
  EXPECT_EQ(llama.outcome, Outcome::Fail);
  EXPECT_NE(llama.reason.en.find("time budget (2 s)"), std::string::npos) << llama.reason.en;
  EXPECT_TRUE(run.outcomes.at("hf_llama").result);
}

TEST(SmokePython, APythonWithoutTorchSkipsWithTheReason) {
  REQUIRE_TORCH_PYTHON(python);
  NoTorchPython bare(python);
  probes::Interpreter interpreter(bare.path(), 1);
  SharedRunResult run = RunSharedTests(AllSingleProcessTests(), interpreter, CancelToken::Never());
  EXPECT_EQ(run.interpreters, 1);
  EXPECT_TRUE(run.facts["torch_version"].is_null());
  for (const char* name : {"llama_train", "hf_llama", "qlora", "torch_compile"}) {
    CheckResult r = Verdict(run, name, bare.path());
    EXPECT_EQ(r.outcome, Outcome::Skip) << name;
    EXPECT_NE(r.reason.en.find("has no PyTorch"), std::string::npos) << name << ": " << r.reason.en;
    EXPECT_NE(r.hint.en.find("pip install torch"), std::string::npos) << name;
  }
  // vLLM is looked for first: "it is in another environment" is the useful answer.
  EXPECT_EQ(Verdict(run, "vllm", bare.path()).reason.en, "package vllm is not installed");
}

}  // namespace
}  // namespace labcheck::smoke

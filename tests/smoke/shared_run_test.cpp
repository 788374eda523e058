// RunSharedTests' bookkeeping with a stand-in interpreter (a shell script that prints the line
// protocol): which test is blamed when the process dies, and that the rest get a fresh one.
#include "smoke/shared_run.h"

#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <memory>

#include <gtest/gtest.h>

#include "platform/files.h"

namespace labcheck::smoke {
namespace {

// The run's interpreter starts with interpreter_start.py (probes/interpreter.h): every stand-in
// answers that at once, as a Python without torch would, and goes on to its smoke protocol.
constexpr const char* kAnswersTheStart =
    "case \"$1\" in */interpreter_start.py) echo LABCHECK_ALIVE; "
    "echo 'LABCHECK_RESULT {\"site_packages\": [], \"torch_installed\": false}'; exit 0 ;; esac\n";

class FakeInterpreter : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakePrivateTempDir("lab_check_smoke_test_"); }
  void TearDown() override { RemoveTree(dir_); }

  // `cases` is the body of a shell `case "$tests" in ... esac`; each call's --tests is logged.
  std::string Make(const std::string& cases) {
    const std::string path = dir_ + "/python";
    std::ofstream(path) << "#!/bin/sh\n" << kAnswersTheStart
                        << "echo \"$*\" >> " << dir_ << "/args\n"
                        << "tests=''\nwhile [ $# -gt 0 ]; do [ \"$1\" = --tests ] && tests=\"$2\"; shift; done\n"
                        << "echo \"$tests\" >> " << dir_ << "/calls\n"
                        << "begin() { echo \"LABCHECK_SMOKE_BEGIN $1\"; }\n"
                        << "done_() { echo \"LABCHECK_SMOKE_TEST {\\\"test\\\": \\\"$1\\\", \\\"status\\\": \\\"skip\\\", \\\"reason\\\": \\\"no_gpu\\\"}\"; }\n"
                        << "begin _torch_import; echo 'LABCHECK_SMOKE_FACTS {\"devices\": []}'; echo LABCHECK_ALIVE\n"
                        << "case \"$tests\" in\n" << cases << "\nesac\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  std::string Calls() { return ReadFile(dir_ + "/calls").value(); }

  // Each test is one run, with its own interpreter.
  SharedRunResult Run(const SharedRunRequest& request, const std::string& python,
                      const CancelToken& cancel = CancelToken::Never()) {
    if (!interpreter_ || interpreter_->python() != python) interpreter_ = std::make_unique<probes::Interpreter>(python, 1);
    return RunSharedTests(request, *interpreter_, cancel);
  }

  SharedRunRequest Request(const std::string& python, double budget_s = 5) {
    python_ = python;
    tests_ = {{"a", "smoke.a", Text("a"), Launch::Shared, budget_s},
              {"b", "smoke.b", Text("b"), Launch::Shared, budget_s},
              {"c", "smoke.c", Text("c"), Launch::Shared, budget_s}};
    SharedRunRequest request;
    request.startup_budget_s = 5;
    for (const auto& test : tests_) request.tests.push_back(&test);
    return request;
  }

  std::string dir_;
  std::string python_;  // the last Request's
  std::vector<SmokeTest> tests_;
  std::unique_ptr<probes::Interpreter> interpreter_;
};

TEST_F(FakeInterpreter, OneInterpreterWhenAllIsWell) {
  SharedRunResult run = Run(Request(Make("a,b,c) for t in a b c; do begin $t; done_ $t; done ;;")), python_);
  EXPECT_EQ(run.interpreters, 1);
  for (const char* name : {"a", "b", "c"}) EXPECT_EQ(run.outcomes[name].status(), "skip") << name;
  EXPECT_TRUE(run.facts.contains("devices"));
}

TEST_F(FakeInterpreter, ACrashBlamesTheRunningTestAndTheRestContinue) {
  const SharedRunRequest request = Request(Make("a,b,c) begin a; done_ a; begin b; kill -SEGV $$ ;;\n"
                                                "c) begin c; done_ c ;;"));
  SharedRunResult run = Run(request, python_);
  EXPECT_EQ(run.interpreters, 2);
  EXPECT_EQ(Calls(), "a,b,c\nc\n");
  EXPECT_EQ(run.outcomes["a"].status(), "skip");
  EXPECT_FALSE(run.outcomes["b"].result);
  EXPECT_NE(run.outcomes["b"].lost_reason.en.find("while this test ran"), std::string::npos);
  EXPECT_NE(run.outcomes["b"].lost_reason.en.find("SIGSEGV"), std::string::npos) << run.outcomes["b"].lost_reason.en;
  EXPECT_EQ(run.outcomes["c"].status(), "skip");
}

TEST_F(FakeInterpreter, AHangPastTheTimeoutBlamesTheRunningTest) {
  SharedRunRequest request = Request(Make("a,b,c) begin a; sleep 30 ;;\n"
                                          "b,c) for t in b c; do begin $t; done_ $t; done ;;"),
                                     /*budget_s=*/0.3);
  request.startup_budget_s = 1;
  SharedRunResult run = Run(request, python_);
  EXPECT_EQ(run.interpreters, 2);
  EXPECT_FALSE(run.outcomes["a"].result);
  EXPECT_NE(run.outcomes["a"].lost_reason.en.find("killed"), std::string::npos) << run.outcomes["a"].lost_reason.en;
  EXPECT_EQ(run.outcomes["b"].status(), "skip");
  EXPECT_EQ(run.outcomes["c"].status(), "skip");
}

TEST_F(FakeInterpreter, ACrashWhileImportingTorchIsNotRetried) {
  const std::string python = dir_ + "/python";
  std::ofstream(python) << "#!/bin/sh\n" << kAnswersTheStart << "echo x >> " << dir_ << "/calls\necho 'LABCHECK_SMOKE_BEGIN _torch_import'\n"
                        << "echo 'libcudart.so.12: cannot open shared object file' >&2\nkill -SEGV $$\n";
  chmod(python.c_str(), 0755);
  SharedRunResult run = Run(Request(python), python);
  EXPECT_EQ(run.interpreters, 1);
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_FALSE(run.outcomes[name].result) << name;
    EXPECT_NE(run.outcomes[name].lost_reason.en.find("importing torch"), std::string::npos);
    EXPECT_NE(run.outcomes[name].lost_error.find("libcudart"), std::string::npos);
  }
}

TEST_F(FakeInterpreter, AMissedHandshakeIsOneUnresponsiveInterpreterNotOneTimeoutPerTest) {
  // `import torch` never returns: no alive line within the start-up budget, long before the
  // process timeout (start-up plus every test's budget).
  const std::string python = dir_ + "/python";
  std::ofstream(python) << "#!/bin/sh\n" << kAnswersTheStart << "echo x >> " << dir_ << "/calls\necho 'LABCHECK_SMOKE_BEGIN _torch_import'\n"
                        << "echo 'LABCHECK_STAGE import torch'\nexec sleep 60\n";
  chmod(python.c_str(), 0755);
  SharedRunRequest request = Request(python, /*budget_s=*/30);
  request.startup_budget_s = 1;
  SharedRunResult run = Run(request, python_);
  EXPECT_EQ(run.interpreters, 1);
  ASSERT_TRUE(run.unresponsive);
  EXPECT_EQ(run.unresponsive->stage, "import torch");
  EXPECT_EQ(run.unresponsive->python, python);
  EXPECT_LT(run.unresponsive->waited_s, 10);
  EXPECT_TRUE(run.found_now);
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_FALSE(run.outcomes[name].result) << name;
    EXPECT_NE(run.outcomes[name].lost_reason.en.find("`import torch` hangs"), std::string::npos)
        << run.outcomes[name].lost_reason.en;
  }

  // The run's interpreter remembers: the next group starts nothing and says the same at once.
  SharedRunResult again = Run(request, python);
  EXPECT_EQ(again.interpreters, 0);
  EXPECT_FALSE(again.found_now);
  ASSERT_TRUE(again.unresponsive);
  EXPECT_EQ(again.outcomes["a"].lost_reason.en, run.outcomes["a"].lost_reason.en);
  EXPECT_EQ(Calls(), "x\n");
}

TEST_F(FakeInterpreter, AProbeThatForgetsATestIsNotRetriedEither) {
  SharedRunResult run = Run(Request(Make("a,b,c) begin a; done_ a ;;")), python_);
  EXPECT_EQ(run.interpreters, 1);
  EXPECT_EQ(run.outcomes["a"].status(), "skip");
  EXPECT_NE(run.outcomes["b"].lost_reason.en.find("without this test's result"), std::string::npos);
}

TEST_F(FakeInterpreter, AnInterruptedRunIsCancelledNotFailed) {
  std::atomic<bool> interrupted{true};
  SharedRunResult run = Run(Request(Make("a,b,c) begin a; sleep 30 ;;")), python_, CancelToken(&interrupted));
  EXPECT_EQ(run.interpreters, 1);
  for (const char* name : {"a", "b", "c"}) EXPECT_TRUE(run.outcomes[name].cancelled) << name;
}

TEST_F(FakeInterpreter, DeferredTestsAreOnlyPrecheckedAndTheirBudgetIsNotWaited) {
  SharedRunRequest request = Request(Make("a,b,c) for t in a b c; do begin $t; done_ $t; done ;;"));
  request.deferred = {"b"};
  request.timeout_scale = 2;
  SharedRunResult run = Run(request, python_);
  EXPECT_EQ(run.interpreters, 1);
  EXPECT_EQ(run.outcomes.size(), 3u);
  const std::string args = ReadFile(dir_ + "/args").value();
  EXPECT_NE(args.find("smoke_run.py --tests a,b,c --defer b --budgets a=10,c=10"), std::string::npos) << args;
}

}  // namespace
}  // namespace labcheck::smoke

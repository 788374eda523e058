#include "runner/runner.h"

#include <gtest/gtest.h>

#include "runner/child_failure.h"
#include "runner/child_process.h"

namespace labcheck {
namespace {

Check Simple(std::string id, std::function<CheckResult(CheckContext&)> fn) {
  Check c;
  c.id = std::move(id);
  c.section = "cpu";
  c.title = Text(c.id);
  c.run = std::move(fn);
  return c;
}

CheckResult Pass() {
  CheckResult r;
  r.outcome = Outcome::Pass;
  return r;
}

class RunnerTest : public ::testing::Test {
 protected:
  void TearDown() override { ResetInterrupt(); }
  NullProgress progress;
  RunOptions options;
};

TEST_F(RunnerTest, AHangingChildFailsAndTheRunGoesOn) {
  Registry reg;
  reg.Add(Simple("hangs", [](CheckContext& ctx) {
    ChildSpec spec;
    spec.argv = {"sleep", "30"};
    spec.timeout_s = 0.3;
    ChildOutcome o = RunChild(spec, ctx.cancel());
    return o.exited_ok() ? Pass() : ChildFailure("hangs", o);
  }));
  reg.Add(Simple("segfaults", [](CheckContext& ctx) {
    ChildSpec spec;
    spec.argv = {"sh", "-c", "kill -SEGV $$"};
    ChildOutcome o = RunChild(spec, ctx.cancel());
    return o.exited_ok() ? Pass() : ChildFailure("segfaults", o);
  }));
  reg.Add(Simple("after", [](CheckContext&) { return Pass(); }));
  auto results = RunChecks(reg, options, CancelToken::Never(), progress);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].outcome, Outcome::Fail);
  EXPECT_NE(results[0].reason.en.find("killed"), std::string::npos);
  EXPECT_EQ(results[1].outcome, Outcome::Fail);
  EXPECT_NE(results[1].reason.en.find("SIGSEGV"), std::string::npos);
  EXPECT_EQ(results[2].outcome, Outcome::Pass);
}

TEST_F(RunnerTest, AnExceptionIsOneChecksFail) {
  Registry reg;
  reg.Add(Simple("throws", [](CheckContext&) -> CheckResult { throw std::runtime_error("boom"); }));
  reg.Add(Simple("after", [](CheckContext&) { return Pass(); }));
  auto results = RunChecks(reg, options, CancelToken::Never(), progress);
  EXPECT_EQ(results[0].outcome, Outcome::Fail);
  EXPECT_EQ(results[0].error, "boom");
  EXPECT_EQ(results[1].outcome, Outcome::Pass);
}

TEST_F(RunnerTest, InterruptMarksTheRestNotRunAndKeepsWhatWasMeasured) {
  const CancelToken cancel = InstallInterruptHandlers();
  Registry reg;
  reg.Add(Simple("first", [](CheckContext&) { return Pass(); }));
  reg.Add(Simple("interrupted", [](CheckContext&) {
    CheckResult r = Pass();
    r.Add(Measurement{"x.partial_gbps", Text("x"), 1.5, "GB/s"});
    raise(SIGINT);  // as the user's Ctrl-C would
    return r;
  }));
  reg.Add(Simple("never", [](CheckContext&) { return Pass(); }));
  auto results = RunChecks(reg, options, cancel, progress);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].outcome, Outcome::Pass);
  EXPECT_EQ(results[1].outcome, Outcome::NotRun);
  ASSERT_NE(results[1].Find("x.partial_gbps"), nullptr);
  EXPECT_EQ(results[2].outcome, Outcome::NotRun);
  EXPECT_EQ(InterruptSignal(), SIGINT);
}

TEST_F(RunnerTest, FlagsSkipWhatTheyExclude) {
  Registry reg;
  Check dist = Simple("dist", [](CheckContext&) { return Pass(); });
  dist.distributed = true;
  Check full = Simple("full", [](CheckContext&) { return Pass(); });
  full.quick = QuickMode::FullOnly;
  reg.Add(dist);
  reg.Add(full);
  options.skip_dist = true;
  options.quick = true;
  auto results = RunChecks(reg, options, CancelToken::Never(), progress);
  EXPECT_EQ(results[0].outcome, Outcome::Skip);
  EXPECT_NE(results[0].reason.en.find("--skip-dist"), std::string::npos);
  EXPECT_EQ(results[1].outcome, Outcome::Skip);
  EXPECT_NE(results[1].reason.en.find("--quick"), std::string::npos);
}

TEST_F(RunnerTest, LaterChecksSeeEarlierResultsAndTheScaledBudget) {
  Registry reg;
  reg.Add(Simple("a", [](CheckContext&) {
    CheckResult r = Pass();
    r.summary = Text("from a");
    return r;
  }));
  double budget = 0;
  Check b = Simple("b", [&](CheckContext& ctx) {
    const CheckResult* a = ctx.Earlier("a");
    budget = ctx.budget_s();
    CheckResult r = Pass();
    r.summary = a ? a->summary : Text("missing");
    return r;
  });
  b.reads = {"a"};  // Earlier() serves only what a check declares (check_selection_test.cpp)
  reg.Add(b);
  options.timeout_scale = 2;
  auto results = RunChecks(reg, options, CancelToken::Never(), progress);
  EXPECT_EQ(results[1].summary.en, "from a");
  EXPECT_DOUBLE_EQ(budget, 120);  // the default 60 s budget × 2
}

}  // namespace
}  // namespace labcheck

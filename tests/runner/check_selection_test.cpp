#include "runner/check_selection.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "app/all_checks.h"
#include "runner/runner.h"

namespace labcheck {
namespace {

Check Named(std::string id, std::vector<std::string> reads = {}) {
  Check c;
  c.id = std::move(id);
  c.section = "gpu";
  c.title = Text(c.id);
  c.reads = reads;
  c.run = [reads](CheckContext& ctx) {
    CheckResult r;
    r.outcome = Outcome::Pass;
    for (const std::string& id : reads) r.outcome = ctx.Earlier(id) ? r.outcome : Outcome::Fail;
    return r;
  };
  return c;
}

Registry Sample() {
  Registry r;
  r.Add(Named("env.system"));
  r.Add(Named("gpu.inventory"));
  r.Add(Named("gpu.host_device_copy", {"gpu.inventory"}));
  r.Add(Named("gpu.p2p", {"gpu.inventory", "gpu.host_device_copy"}));
  r.Add(Named("gpu.matmul", {"gpu.inventory"}));
  return r;
}

std::vector<std::string> Ids(const Registry& r) {
  std::vector<std::string> ids;
  for (const Check& c : r.checks()) ids.push_back(c.id);
  return ids;
}

TEST(CheckSelection, NoPatternsIsTheWholeRegistry) {
  EXPECT_EQ(Ids(SelectChecks(Sample(), {})), Ids(Sample()));
}

TEST(CheckSelection, AChosenCheckBringsWhatItReadsAndTheirReadsInRegistryOrder) {
  EXPECT_EQ(Ids(SelectChecks(Sample(), {"gpu.p2p"})),
            (std::vector<std::string>{"gpu.inventory", "gpu.host_device_copy", "gpu.p2p"}));
  EXPECT_EQ(Ids(SelectChecks(Sample(), {"gpu.matmul", "env.system"})),
            (std::vector<std::string>{"env.system", "gpu.inventory", "gpu.matmul"}));
}

TEST(CheckSelection, ShellPatternsMatchIds) {
  EXPECT_EQ(Ids(SelectChecks(Sample(), {"gpu.*"})).size(), 4u);
  EXPECT_EQ(Ids(SelectChecks(Sample(), {"*.system"})), std::vector<std::string>{"env.system"});
}

TEST(CheckSelection, APatternThatMatchesNothingIsNamed) {
  EXPECT_EQ(UnmatchedPattern(Sample(), {"gpu.matmul", "gpu.helth"}), "gpu.helth");
  EXPECT_EQ(UnmatchedPattern(Sample(), {"gpu.*", "env.system"}), "");
  EXPECT_EQ(CheckIds(Sample()), "env.system, gpu.inventory, gpu.host_device_copy, gpu.p2p, gpu.matmul");
}

TEST(CheckSelection, TheSelectedChecksFindWhatTheyRead) {
  NullProgress progress;
  const std::vector<CheckResult> results =
      RunChecks(SelectChecks(Sample(), {"gpu.p2p"}), RunOptions{}, CancelToken::Never(), progress);
  ASSERT_EQ(results.size(), 3u);
  for (const CheckResult& r : results) EXPECT_EQ(r.outcome, Outcome::Pass) << r.id;
}

TEST(CheckSelection, ReadingAnUndeclaredCheckIsAnInternalError) {
  Registry r;
  r.Add(Named("gpu.inventory"));
  Check sneaky = Named("gpu.matmul");
  sneaky.run = [](CheckContext& ctx) {
    (void)ctx.Earlier("gpu.inventory");
    return CheckResult{};
  };
  r.Add(sneaky);
  NullProgress progress;
  const std::vector<CheckResult> results = RunChecks(r, RunOptions{}, CancelToken::Never(), progress);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1].outcome, Outcome::Fail);
  EXPECT_NE(results[1].error.find("gpu.matmul reads gpu.inventory without naming it"), std::string::npos) << results[1].error;
}

// A check asking for its own result (it has not run yet) is a helper used where it does not belong.
TEST(CheckSelection, ReadingItsOwnIdIsAnInternalError) {
  Registry r;
  Check self = Named("gpu.inventory");
  self.run = [](CheckContext& ctx) {
    (void)ctx.Earlier("gpu.inventory");
    return CheckResult{};
  };
  r.Add(self);
  NullProgress progress;
  const std::vector<CheckResult> results = RunChecks(r, RunOptions{}, CancelToken::Never(), progress);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::Fail);
  EXPECT_NE(results[0].error.find("gpu.inventory reads gpu.inventory without naming it"), std::string::npos) << results[0].error;
}

// Every real check reads only what it declares, and what it declares exists and runs before it.
TEST(CheckSelection, TheRealRegistryDeclaresReadsThatRunEarlier) {
  const Registry all = AllChecks();
  std::vector<std::string> seen;
  for (const Check& c : all.checks()) {
    for (const std::string& read : c.reads)
      EXPECT_NE(std::find(seen.begin(), seen.end(), read), seen.end()) << c.id << " reads " << read;
    seen.push_back(c.id);
  }
}

}  // namespace
}  // namespace labcheck

// The smoke checks as the runner sees them: ids, flags, --quick and --skip-dist, no interpreter,
// and one whole run on this machine.
#include "smoke/smoke_checks.h"

#include <set>

#include <gtest/gtest.h>

#include "probes/interpreter.h"
#include "runner/runner.h"
#include "torch_python.h"

namespace labcheck {
namespace {

std::vector<CheckResult> RunAll(const Registry& registry, RunOptions options) {
  NullProgress progress;
  return RunChecks(registry, options, CancelToken::Never(), progress);
}

TEST(SmokeChecks, RegistersElevenChecksWithTheirFlags) {
  Registry registry;
  RegisterSmokeChecks(registry);
  std::set<std::string> ids;
  for (const Check& check : registry.checks()) {
    ids.insert(check.id);
    EXPECT_EQ(check.section, "smoke");
    EXPECT_EQ(check.quick, QuickMode::FullOnly) << check.id;
    EXPECT_EQ(check.distributed, check.id == "smoke.ddp" || check.id == "smoke.fsdp2") << check.id;
    EXPECT_FALSE(check.title.ru.empty());
    EXPECT_FALSE(check.title.en.empty());
  }
  EXPECT_EQ(ids, (std::set<std::string>{"smoke.ddp", "smoke.fsdp2", "smoke.llama_train", "smoke.hf_llama", "smoke.lora",
                                        "smoke.qlora", "smoke.flash_attention", "smoke.triton", "smoke.torch_compile",
                                        "smoke.vllm", "smoke.unsloth"}));
}

TEST(SmokeChecks, QuickSkipsThemAllAndSkipDistTheDistributedOnes) {
  Registry registry;
  RegisterSmokeChecks(registry);
  RunOptions quick;
  quick.quick = true;
  quick.python = "/nonexistent/python";  // nothing may start
  for (const CheckResult& r : RunAll(registry, quick)) EXPECT_EQ(r.outcome, Outcome::Skip) << r.id;

  RunOptions no_dist;
  no_dist.skip_dist = true;
  no_dist.python = "";  // no interpreter: the rest SKIP for that reason
  for (const CheckResult& r : RunAll(registry, no_dist)) {
    EXPECT_EQ(r.outcome, Outcome::Skip) << r.id;
    const bool distributed = r.id == "smoke.ddp" || r.id == "smoke.fsdp2";
    EXPECT_EQ(r.reason.en.find(distributed ? "--skip-dist" : "no Python interpreter") != std::string::npos, true)
        << r.id << ": " << r.reason.en;
  }
}

TEST(SmokeChecks, AWholeRunOnThisMachineImportsTorchOnceForTheSingleProcessTests) {
  const std::string python = smoke::testing::TorchPython();
  if (python.empty()) GTEST_SKIP() << "no Python with torch (set LABCHECK_TEST_PYTHON)";
  Registry registry;
  auto session = std::make_shared<smoke::SmokeSession>();
  smoke::RegisterSmokeChecks(registry, session);
  RunOptions options;
  options.python = python;
  options.interpreter = std::make_shared<probes::Interpreter>(python, 1);
  options.skip_dist = true;  // DDP for real is DistPython's; one launch less keeps the suite short
  for (const CheckResult& r : RunAll(registry, options)) {
    EXPECT_NE(r.outcome, Outcome::Fail) << r.id << ": " << r.reason.en << "\n" << r.error;
    if (r.outcome == Outcome::Skip) {
      EXPECT_FALSE(r.reason.empty()) << r.id;
    }
    if (r.id == "smoke.llama_train") {
      EXPECT_EQ(r.outcome, Outcome::Pass) << r.id;
    }
  }
  // Packages present on this machine could add isolated interpreters, never more shared ones.
  EXPECT_EQ(session->shared_interpreters(), 1);
}

}  // namespace
}  // namespace labcheck

#include "smoke/smoke_checks.h"

#include "probes/unresponsive.h"
#include "smoke/verdict.h"

namespace labcheck {
namespace smoke {
namespace {

CheckResult RunSmokeCheck(const SmokeTest& test, SmokeSession& session, CheckContext& ctx) {
  const std::string& python = ctx.options().python;
  if (python.empty()) {
    return Skipped(test.check_id, T("не найден интерпретатор Python", "no Python interpreter was found"),
                   T("укажите интерпретатор с PyTorch: lab_check --python ~/venvs/ai/bin/python",
                     "name an interpreter with PyTorch: lab_check --python ~/venvs/ai/bin/python"));
  }
  // An interpreter known not to answer costs one timeout, not one per test.
  std::optional<probes::Unresponsive> known = session.unresponsive();
  if (const CheckResult* env = ctx.Earlier("env.python"); !known && env && env->data.contains(probes::kUnresponsiveKey)) {
    known = probes::Unresponsive::FromJson(env->data[probes::kUnresponsiveKey]);
  }
  if (known) {
    CheckResult skipped = Skipped(test.check_id, known->Reason(), known->Hint());
    skipped.data = {{probes::kUnresponsiveKey, known->ToJson()}};
    return skipped;
  }
  const TestOutcome outcome = session.Outcome(test, ctx);
  if (const auto& found = session.unresponsive(); found && !outcome.result) {
    // This test's probe is the one that found it: a FAIL, with the same reason and hint.
    CheckResult failed = Failed(test.check_id, found->Reason(), found->Hint(), outcome.lost_error);
    failed.data = {{probes::kUnresponsiveKey, found->ToJson()}};
    return failed;
  }
  return JudgeOutcome(test, outcome, session.facts(), python);
}

}  // namespace

void RegisterSmokeChecks(Registry& registry, std::shared_ptr<SmokeSession> session) {
  for (const SmokeTest& test : SmokeTests()) {
    Check check;
    check.id = test.check_id;
    check.section = "smoke";
    check.title = test.title;
    check.quick = QuickMode::FullOnly;
    check.distributed = test.launch == Launch::Torchrun;
    check.budget_s = test.budget_s;
    check.run = [&test, session](CheckContext& ctx) { return RunSmokeCheck(test, *session, ctx); };
    check.reads = {"env.python"};  // an interpreter it found unresponsive is not waited for again
    registry.Add(std::move(check));
  }
}

}  // namespace smoke

void RegisterSmokeChecks(Registry& registry) {
  smoke::RegisterSmokeChecks(registry, std::make_shared<smoke::SmokeSession>());
}

}  // namespace labcheck

#include "smoke/smoke_checks.h"

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
  const TestOutcome outcome = session.Outcome(test, ctx);
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
    registry.Add(std::move(check));
  }
}

}  // namespace smoke

void RegisterSmokeChecks(Registry& registry) {
  smoke::RegisterSmokeChecks(registry, std::make_shared<smoke::SmokeSession>());
}

}  // namespace labcheck

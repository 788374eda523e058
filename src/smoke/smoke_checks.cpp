#include "smoke/smoke_checks.h"

#include "probes/interpreter.h"
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
  // An interpreter known not to answer costs one start-up budget, not one per test: the run's
  // interpreter says so at once, whoever found it (env.python, as a rule).
  probes::Interpreter& interpreter = probes::ChosenInterpreter(ctx.options());
  const bool known = interpreter.unresponsive().has_value();
  if (known && !session.HasOutcome(test))
    return probes::UnresponsiveResult(test.check_id, *interpreter.unresponsive(), /*found_now=*/false);
  const TestOutcome outcome = session.Outcome(test, ctx);
  // This test's probe is the one that found it: a FAIL, with the same reason and hint.
  if (!known && interpreter.unresponsive() && !outcome.result)
    return probes::UnresponsiveResult(test.check_id, *interpreter.unresponsive(), /*found_now=*/true, outcome.lost_error);
  // The report's facts as far as they are known now: the interpreter (env.python), the driver's
  // cards against CUDA's (gpu.inventory), what torch itself saw (the shared probe's facts).
  facts::RunFacts run;
  run.torch = facts::ReadTorchFacts(ctx.Earlier("env.python"), session.facts());
  run.cards = facts::ReadCardFacts(ctx.Earlier("gpu.inventory"));
  run.flags.quick = ctx.options().quick;
  run.flags.skip_dist = ctx.options().skip_dist;
  CheckResult result = JudgeOutcome(test, outcome, session.facts(), python, &run);
  // What torch saw, kept for the report's facts (src/facts/run_facts.cpp reads it back).
  if (session.facts().is_object() && session.facts().contains("cuda_available")) result.data["torch"] = session.facts();
  return result;
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
    check.reads = {"env.python", "gpu.inventory"};  // the report's facts: why PyTorch has no card
    registry.Add(std::move(check));
  }
}

}  // namespace smoke

void RegisterSmokeChecks(Registry& registry) {
  smoke::RegisterSmokeChecks(registry, std::make_shared<smoke::SmokeSession>());
}

}  // namespace labcheck

#include "smoke/smoke_session.h"

#include "smoke/dist_run.h"

namespace labcheck::smoke {

std::vector<std::pair<std::string, std::string>> SmokeSession::Env() const {
  // Models are built from configs in memory; nothing may reach the Hugging Face hub.
  std::vector<std::pair<std::string, std::string>> env = {{"HF_HUB_OFFLINE", "1"}, {"TRANSFORMERS_OFFLINE", "1"}};
  env.insert(env.end(), extra_env_.begin(), extra_env_.end());
  return env;
}

void SmokeSession::RunSharedGroup(CheckContext& ctx) {
  SharedRunRequest request;
  request.timeout_scale = ctx.options().timeout_scale;
  request.set_env = Env();
  for (const SmokeTest& test : SmokeTests()) {
    if (test.launch == Launch::Torchrun) continue;
    request.tests.push_back(&test);
    if (test.launch == Launch::Isolated) request.deferred.insert(test.name);
  }
  ctx.Progress(-1, T("смоук-тесты: один интерпретатор Python на все однопроцессные тесты",
                     "smoke tests: one Python interpreter for the single-process tests").In(ctx.options().lang));
  shared_ = RunSharedTests(request, probes::ChosenInterpreter(ctx.options()), ctx.cancel());
}

bool SmokeSession::HasOutcome(const SmokeTest& test) const {
  if (!shared_ || test.launch == Launch::Torchrun) return false;
  auto found = shared_->outcomes.find(test.name);
  return found != shared_->outcomes.end() && found->second.status() != "defer";
}

TestOutcome SmokeSession::Outcome(const SmokeTest& test, CheckContext& ctx) {
  if (test.launch == Launch::Torchrun) {
    ctx.Progress(-1, "torch.distributed.run: " + test.name);
    DistRunRequest request{test.name, ctx.budget_s(), Env(), probes::kTorchImportBudgetS * ctx.options().timeout_scale};
    return RunDistributedTest(request, probes::ChosenInterpreter(ctx.options()), ctx.cancel());
  }
  if (!shared_) RunSharedGroup(ctx);
  auto found = shared_->outcomes.find(test.name);
  if (found == shared_->outcomes.end()) {
    return TestOutcome::Lost(T("внутренняя ошибка: тест не запускался", "internal error: the test was not run"), {});
  }
  if (test.launch != Launch::Isolated || found->second.status() != "defer") return found->second;

  // Its package is there and nothing stops it: now it runs alone, in a fresh interpreter.
  ctx.Progress(-1, T("смоук-тест в отдельном интерпретаторе: ", "smoke test in its own interpreter: ")
                       .In(ctx.options().lang) + test.name);
  SharedRunRequest alone;
  alone.timeout_scale = ctx.options().timeout_scale;
  alone.set_env = Env();
  alone.tests = {&test};
  SharedRunResult run = RunSharedTests(alone, probes::ChosenInterpreter(ctx.options()), ctx.cancel());
  if (!run.facts.empty()) shared_->facts = run.facts;
  found->second = run.outcomes[test.name];
  return found->second;
}

}  // namespace labcheck::smoke

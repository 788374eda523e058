#include "compat/compat_check.h"

#include "compat/compat_rules.h"
#include "facts/statements.h"
#include "probes/interpreter.h"

namespace labcheck {

namespace compat {

CheckResult RunCompatCheck(CheckContext& context) {
  CompatFacts facts;
  const CheckResult* inventory = context.Earlier("gpu.inventory");
  if (inventory != nullptr && (inventory->outcome == Outcome::Pass || inventory->outcome == Outcome::Warn))
    facts.driver = DriverFromInventory(inventory->data);
  const facts::CardFacts cards = facts::ReadCardFacts(inventory);
  facts.driver_gpu_count = cards.DriverCount();
  if (cards.AnyGpu()) facts.no_cuda_card = facts::WhyCudaHasNoGpu(cards).value_or(Text());
  facts.torch_missing = facts::TorchMissing(facts::ReadTorchFacts(context.Earlier("env.python"), nullptr)).value_or(Text());

  const std::string& python = context.options().python;
  if (python.empty()) {
    facts.python_problem = "no Python found (--python)";
  } else {
    context.Progress(-1, "env_compat.py: import torch");
    probes::ProbeSpec spec;
    spec.probe = "env_compat.py";
    spec.args = CompatPackages();
    spec.timeout_s = context.budget_s();
    // The interpreter's start has imported torch already; should this import hang all the same,
    // it costs the same budget, not the check's whole timeout.
    spec.startup_budget_s = probes::kTorchImportBudgetS * context.options().timeout_scale;
    probes::Asked asked = probes::ChosenInterpreter(context.options()).Run(spec, probes::Needs::Torch, context.cancel());
    // Without an answer there is nothing of Python's to compare: the interpreter's own words.
    if (asked.unresponsive)
      return probes::UnresponsiveResult("env.compat", *asked.unresponsive, asked.found_now, asked.run.process.Tail(15));
    const probes::ProbeRun& run = asked.run;
    if (!run.result.ok()) {
      facts.python_problem = run.result.status().message();
    } else if (Result<PythonSide> side = ParseCompatProbe(*run.result); side.ok()) {
      facts.python = *side;
    } else {
      facts.python_problem = side.status().message();
    }
  }
  CheckResult result = AssessCompat(facts, EmbeddedCompatData());
  // torch installed (its metadata is there) but `import torch` fails: every rule above is moot.
  const bool torch_installed = facts.python && facts.python->packages.count("torch") > 0 && facts.python->packages.at("torch").has_value();
  if (torch_installed && !facts.python->torch_import_error.empty() && result.outcome == Outcome::Pass) {
    result.outcome = Outcome::Warn;
    result.reason = T("torch не импортируется: " + facts.python->torch_import_error, "torch does not import: " + facts.python->torch_import_error);
    result.hint = T("pip install --force-reinstall torch", "pip install --force-reinstall torch");
  }
  return result;
}

}  // namespace compat

void RegisterCompatChecks(Registry& registry) {
  registry.Add(Check{
      .id = "env.compat",
      .section = "environment",
      .title = T("Совместимость: драйвер, torch, карты, расширения", "Compatibility: driver, torch, cards, extensions"),
      .quick = QuickMode::Full,
      // `import torch` plus bitsandbytes and flash-attn: seconds warm, tens of seconds from a cold disk.
      .budget_s = 120,
      .run = compat::RunCompatCheck,
      .reads = {"env.python", "gpu.inventory"},
  });
}

}  // namespace labcheck

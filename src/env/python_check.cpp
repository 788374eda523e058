#include "env/python_check.h"


#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/text_util.h"
#include "facts/statements.h"
#include "probes/interpreter.h"

namespace labcheck::env {
namespace {

using nlohmann::json;

Text TorchBuild(const PythonFacts& facts) {
  if (facts.torch_cuda) return "CUDA " + *facts.torch_cuda;
  if (facts.torch_hip) return "ROCm " + *facts.torch_hip;
  if (!facts.torch_version_error.empty()) return T("сборка не прочитана", "build unreadable");
  return T("сборка только для CPU", "CPU-only build");
}

Text EnvironmentKind(const PythonFacts& facts) {
  if (facts.venv) return "venv";
  if (facts.conda) return "conda";
  return T("системный Python, без venv", "system Python, no venv");
}

bool HasTorch(const PythonFacts& facts) {
  const std::optional<std::string>* torch = facts.Version("torch");
  return (torch != nullptr && torch->has_value()) || facts.torch_files_found;
}

Table InterpreterTable(const PythonFacts& facts, const PythonContext& context) {
  Table interpreter;
  interpreter.title = "Python";
  interpreter.columns = {T("Что", "Item"), T("Значение", "Value")};
  interpreter.AddRow({T("Интерпретатор", "Interpreter"), context.python_path});
  interpreter.AddRow({T("Версия", "Version"), facts.version + " (" + facts.implementation + ")"});
  interpreter.AddRow({T("Окружение", "Environment"), EnvironmentKind(facts)});
  for (const std::string& dir : facts.site_packages) {
    interpreter.AddRow({"site-packages", dir});
  }
  return interpreter;
}

// The course's packages with their versions; torch's with its build.
Table PackagesTable(const PythonFacts& facts) {
  Table packages;
  packages.title = T("Пакеты курса", "Course packages");
  packages.columns = {T("Пакет", "Package"), T("Версия", "Version")};
  packages.notes.push_back(T("Версии из метаданных установленных пакетов (importlib.metadata), "
                             "сборка PyTorch из torch/version.py: для версий пакеты не импортируются; "
                             "`import torch` выполняется отдельно, только чтобы убедиться, что он не зависает.",
                             "Versions from installed package metadata (importlib.metadata), "
                             "PyTorch's build from torch/version.py: no package is imported for them; "
                             "`import torch` runs once on its own, only to see that it comes back."));
  for (const auto& [name, version] : facts.packages) {
    if (!version) {
      packages.AddRow({name, T("не установлен", "not installed")});
      continue;
    }
    Text shown = *version;
    if (name == "torch") {
      Text build = TorchBuild(facts);
      shown = Text(*version + " (" + build.ru + ")", *version + " (" + build.en + ")");
    }
    packages.AddRow({name, shown});
  }
  return packages;
}

// WARN when the versions cannot be read or torch is missing; torch's build against the cards is
// env.compat's (python_check.h).
void SetPythonVerdict(CheckResult& result, const PythonFacts& facts, const PythonContext& context) {
  std::vector<Text> warnings, hints;
  if (!facts.metadata_error.empty()) {
    warnings.push_back(Append(T("версии пакетов не прочитаны: ", "package versions unreadable: "),
                              facts.metadata_error));
    hints.push_back(T("Курсу нужен Python 3.9 или новее.", "The course needs Python 3.9 or newer."));
  } else if (!HasTorch(facts)) {
    facts::TorchFacts torch;
    torch.state = facts::TorchState::Absent;
    torch.python = context.python_path;
    const Text missing = *facts::TorchMissing(torch);
    warnings.push_back(T(missing.ru + ": без него не работают смоук-тесты PyTorch",
                         missing.en + ": the PyTorch smoke tests need it"));
    hints.push_back(facts::FixTorchMissing(torch));
  }
  result.outcome = warnings.empty() ? Outcome::Pass : Outcome::Warn;
  result.reason = Join(warnings, "; ");
  result.hint = Join(hints, " ");
}

json PythonData(const PythonFacts& facts, const PythonContext& context) {
  json packages_data = json::object();
  for (const auto& [name, version] : facts.packages) packages_data[name] = version ? json(*version) : json(nullptr);
  return {
      {"python", {{"path", context.python_path},
                  {"executable", facts.executable},
                  {"version", facts.version},
                  {"implementation", facts.implementation},
                  {"venv", facts.venv},
                  {"conda", facts.conda},
                  {"site_packages", facts.site_packages}}},
      {"packages", packages_data},
      {"torch_installed", HasTorch(facts)},
      {"torch_cuda", facts.torch_cuda ? json(*facts.torch_cuda) : json(nullptr)},
      {"torch_hip", facts.torch_hip ? json(*facts.torch_hip) : json(nullptr)}};
}

Text PythonSummary(const PythonFacts& facts) {
  int installed = 0;
  for (const auto& entry : facts.packages) installed += entry.second ? 1 : 0;
  std::string counts = fmt::format("{}/{}", installed, facts.packages.size());
  // The commonest first run is the course's environment not activated: the line a student reads
  // first (the progress line, the summary table) says so and what to do, not only "no PyTorch".
  Text torch_part = T("PyTorch не установлен в этом интерпретаторе: активируйте окружение курса или укажите --python",
                      "torch is not installed in this interpreter: activate the course's environment or pass --python");
  if (HasTorch(facts)) {
    const std::optional<std::string>* torch = facts.Version("torch");
    std::string version = (torch && *torch) ? **torch : std::string("?");
    Text build = TorchBuild(facts);
    torch_part = Text("torch " + version + ", " + build.ru, "torch " + version + ", " + build.en);
  }
  return Text("Python " + facts.version + "; " + torch_part.ru + "; пакетов курса: " + counts,
              "Python " + facts.version + "; " + torch_part.en + "; course packages: " + counts);
}

}  // namespace

CheckResult AssessPython(const PythonFacts& facts, const PythonContext& context) {
  CheckResult result;
  result.id = "env.python";
  result.section = "environment";
  result.title = T("Python и пакеты курса", "Python and course packages");
  result.tables = {InterpreterTable(facts, context), PackagesTable(facts)};
  result.data = PythonData(facts, context);
  result.summary = PythonSummary(facts);
  SetPythonVerdict(result, facts, context);
  return result;
}

CheckResult RunPythonCheck(CheckContext& ctx) {
  const std::string& python = ctx.options().python;
  if (python.empty()) {
    return Skipped("env.python", T("Python не найден", "no Python found"),
                   T("Активируйте окружение курса (source ~/venvs/ai/bin/activate) или укажите "
                     "интерпретатор: --python /путь/к/python",
                     "Activate the course environment (source ~/venvs/ai/bin/activate) or name "
                     "the interpreter: --python /path/to/python"));
  }
  probes::Interpreter& interpreter = probes::ChosenInterpreter(ctx.options());
  ctx.Progress(-1, "env_packages.py");
  probes::ProbeSpec spec;
  spec.probe = "env_packages.py";
  spec.args = CoursePackages();
  spec.timeout_s = ctx.budget_s();
  // The probe imports nothing heavy, like the interpreter's own start before it.
  spec.startup_budget_s = probes::kStartupBudgetS * ctx.options().timeout_scale;
  probes::Asked asked = interpreter.Run(spec, probes::Needs::Interpreter, ctx.cancel());
  // This check is the interpreter's own: whoever learned it first, not answering is its FAIL.
  if (asked.unresponsive) return probes::UnresponsiveResult("env.python", *asked.unresponsive, true, asked.run.process.Tail(15));
  const probes::ProbeRun& run = asked.run;

  Text hint = T("Проверьте, что интерпретатор запускается: " + python + " -c 'import sys; print(sys.version)'",
                "Check that the interpreter starts: " + python + " -c 'import sys; print(sys.version)'");
  if (!run.result.ok()) {
    std::string error = run.result.status().message();
    std::string tail = run.process.Tail(15);  // RunProbe quotes the same 15 lines
    if (!tail.empty() && error.find(tail) == std::string::npos) error += "\n" + tail;
    return Failed("env.python", T("проба окружения Python не дала результата",
                                  "the Python environment probe gave no result"),
                  hint, error);
  }
  auto facts = ParsePythonProbe(*run.result, CoursePackages());
  if (!facts.ok()) {
    return Failed("env.python", T("проба окружения Python вернула неверный результат",
                                  "the Python environment probe returned a malformed result"),
                  hint, facts.status().message() + "\n" + run.result->dump());
  }
  PythonContext context;
  context.python_path = python;
  CheckResult result = AssessPython(*facts, context);

  // The versions above need no import; every later part that uses torch imports it. A hang there is
  // found here, once, beside the packages it hangs in, and the later parts SKIP at once.
  ctx.Progress(-1, "import torch");
  if (std::optional<probes::Unresponsive> stuck = interpreter.Start(probes::Needs::Torch, ctx.cancel())) {
    CheckResult failed = probes::UnresponsiveResult("env.python", *stuck, true);
    result.outcome = failed.outcome;
    result.reason = failed.reason;
    result.hint = failed.hint;
    result.data.update(failed.data);
  }
  return result;
}

}  // namespace labcheck::env

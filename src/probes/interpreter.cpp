#include "probes/interpreter.h"

#include <algorithm>
#include <stdexcept>

#include "runner/check.h"

namespace labcheck::probes {

std::vector<std::string> SitePackagesFromAnswer(const nlohmann::json& paths) {
  std::vector<std::string> folders;
  if (!paths.is_array()) return folders;
  for (const nlohmann::json& item : paths) {
    if (!item.is_string()) continue;
    std::string path = item.get<std::string>();
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const bool packages = path.ends_with("site-packages") || path.ends_with("dist-packages");
    if (packages && std::find(folders.begin(), folders.end(), path) == folders.end()) folders.push_back(path);
  }
  return folders;
}

ProbeRun Interpreter::RunStartProbe(bool import_torch, const CancelToken& cancel) {
  ProbeSpec spec;
  spec.python = python_;
  spec.probe = "interpreter_start.py";
  if (import_torch) spec.args = {"--import-torch"};
  spec.startup_budget_s = (import_torch ? kTorchImportBudgetS : kStartupBudgetS) * scale_;
  // After the handshake only a list of folders is printed: the timeout is a last resort.
  spec.timeout_s = spec.startup_budget_s + kStartupBudgetS * scale_;
  ++started_;
  return RunProbe(spec, cancel);
}

std::optional<Unresponsive> Interpreter::StartInterpreter(const CancelToken& cancel) {
  if (interpreter_started_) return unresponsive_;
  interpreter_started_ = true;
  ProbeRun run = RunStartProbe(/*import_torch=*/false, cancel);
  // The start imports only the standard library: a missed handshake is the interpreter itself,
  // and an exit before it (a venv whose base Python is gone) would repeat for every probe.
  unresponsive_ = UnresponsiveIn(run, python_);
  if (!unresponsive_) unresponsive_ = EndedBeforeHandshake(run, python_);
  if (unresponsive_) return unresponsive_;
  if (!run.result.ok()) {
    no_answer_ = run.result.status().message();
    return std::nullopt;
  }
  StartAnswer answer;
  answer.site_packages = SitePackagesFromAnswer(run.result->value("site_packages", nlohmann::json::array()));
  const nlohmann::json& torch = run.result->value("torch_installed", nlohmann::json(false));
  answer.torch_installed = torch.is_boolean() && torch.get<bool>();
  answer_ = std::move(answer);
  return std::nullopt;
}

std::optional<Unresponsive> Interpreter::StartTorch(const CancelToken& cancel) {
  if (torch_started_) return unresponsive_;
  torch_started_ = true;
  // No torch (or no answer about it): the probes that need it say so themselves, at once.
  if (!answer_ || !answer_->torch_installed) return std::nullopt;
  ProbeRun run = RunStartProbe(/*import_torch=*/true, cancel);
  // Only a hang counts: an import that fails or crashes comes back, and the probes report it.
  unresponsive_ = UnresponsiveIn(run, python_);
  return unresponsive_;
}

std::optional<Unresponsive> Interpreter::Start(Needs needs, const CancelToken& cancel) {
  if (python_.empty()) return std::nullopt;
  if (auto stuck = StartInterpreter(cancel)) return stuck;
  if (needs == Needs::Torch) return StartTorch(cancel);
  return std::nullopt;
}

Asked Interpreter::Run(ProbeSpec spec, Needs needs, const CancelToken& cancel) {
  Asked asked;
  if (python_.empty()) {
    asked.run.result = Status::Error("no Python interpreter was found");
    return asked;
  }
  const bool known_before = unresponsive_.has_value();
  Start(needs, cancel);
  if (unresponsive_) {
    asked.unresponsive = unresponsive_;
    asked.found_now = !known_before;
    asked.run.result = Status::Error(unresponsive_->Reason().en);
    return asked;
  }
  spec.python = python_;
  ++started_;
  asked.run = RunProbe(spec, cancel);
  if (auto stuck = UnresponsiveIn(asked.run, python_)) {
    unresponsive_ = stuck;
    asked.unresponsive = std::move(stuck);
    asked.found_now = true;
  }
  return asked;
}

SitePackages Interpreter::FindSitePackages(const CancelToken& cancel) {
  SitePackages found;
  if (python_.empty()) {
    found.unknown = T("Python не найден", "no Python was found");
  } else if (auto stuck = Start(Needs::Interpreter, cancel)) {
    found.unknown = stuck->Reason();
  } else if (!answer_) {
    found.unknown = T("интерпретатор " + python_ + " не назвал свои site-packages: " + no_answer_,
                      "the interpreter " + python_ + " did not name its site-packages: " + no_answer_);
  } else {
    found.folders = answer_->site_packages;
  }
  return found;
}

Interpreter& ChosenInterpreter(const RunOptions& options) {
  if (!options.interpreter) throw std::logic_error("RunOptions::interpreter is not set: the run has no chosen interpreter");
  return *options.interpreter;
}

CheckResult UnresponsiveResult(const std::string& check_id, const Unresponsive& unresponsive, bool found_now,
                               const std::string& error) {
  CheckResult result = found_now ? Failed(check_id, unresponsive.Reason(), unresponsive.Hint(), error)
                                 : Skipped(check_id, unresponsive.Reason(), unresponsive.Hint());
  result.data = {{kUnresponsiveKey, unresponsive.ToJson()}};
  return result;
}

}  // namespace labcheck::probes

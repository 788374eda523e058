#include "gpu/checks/gpu_check_support.h"

#include <cmath>

#include <fmt/format.h>

#include "facts/statements.h"
#include "gpu/checks/gpu_check_list.h"
#include "gpu/job_envelope.h"
#include "probes/interpreter.h"

namespace labcheck::gpu {

ChildJobOutcome RunGpuJob(const CheckContext& context, const std::string& job, std::vector<std::string> extra_args,
                          std::vector<std::pair<std::string, std::string>> env, double timeout_s) {
  std::vector<std::string> args;
  for (const std::string& folder : SitePackagesFor(context).folders) {
    args.push_back("--site-packages");
    args.push_back(folder);
  }
  if (context.options().quick) args.push_back("--quick");
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  return RunChildJob(context.options().self_exe, job, args, timeout_s > 0 ? timeout_s : context.budget_s(),
                     context.cancel(), std::move(env));
}

probes::SitePackages SitePackagesFor(const CheckContext& context) {
  if (context.options().python.empty()) return {};  // no Python: nothing to search, nothing to say
  return probes::ChosenInterpreter(context.options()).FindSitePackages(context.cancel());
}

GpuJobReply RunGpuJobFor(CheckContext& context, const GpuCheckSpec& check, const std::string& progress) {
  if (std::optional<CheckResult> skip = SkipWithoutGpus(context, check.id)) return GpuJobReply{std::move(skip), {}};
  return RunFirstGpuJob(context, check, progress);
}

GpuJobReply RunFirstGpuJob(CheckContext& context, const GpuCheckSpec& check, const std::string& progress) {
  GpuJobReply reply;
  context.Progress(-1, progress);
  ChildJobOutcome outcome = RunGpuJob(context, check.job);
  if ((reply.ending = EnvelopeProblem(check.id, outcome))) return reply;
  reply.payload = std::move(outcome.result).value();
  return reply;
}

std::optional<CheckResult> SkipWithoutGpus(const CheckContext& context, const std::string& check_id) {
  const CheckResult* inventory = context.Earlier(kInventoryCheck.id);
  if (inventory == nullptr) return std::nullopt;
  // A WARN without a card: every card hidden from CUDA (CUDA_VISIBLE_DEVICES), its reason says so.
  const nlohmann::json& gpus = inventory->data.value("gpus", nlohmann::json::array());
  const bool no_card = !gpus.is_array() || gpus.empty();
  if (inventory->outcome == Outcome::Skip || inventory->outcome == Outcome::NotRun || (inventory->outcome == Outcome::Warn && no_card))
    return Skipped(check_id, inventory->reason, inventory->hint);
  if (inventory->outcome == Outcome::Fail)
    return Skipped(check_id, T("GPU недоступны: см. gpu.inventory", "GPUs unavailable: see gpu.inventory"), inventory->hint);
  return std::nullopt;
}

std::optional<CheckResult> SkipWithOneGpu(const CheckContext& context, const std::string& check_id, const Text& one_gpu) {
  const CheckResult* inventory = context.Earlier(kInventoryCheck.id);
  if (inventory == nullptr) return std::nullopt;
  const facts::CardFacts cards = facts::ReadCardFacts(inventory);
  if (cards.cuda_gpus != 1) return std::nullopt;
  // One card visible of several: the variable is the cause, and unsetting it the fix.
  if (std::optional<Text> fewer = facts::WhyFewerGpus(cards); fewer && cards.visible_devices) {
    const Text what = T("пары для замера нет", "there is no pair to measure");
    return Skipped(check_id, T(fewer->ru + ": " + what.ru, fewer->en + ": " + what.en), facts::FixFewerGpus(cards));
  }
  return Skipped(check_id, one_gpu);
}

const nlohmann::json* InventoryGpu(const CheckContext& context, int index) {
  const CheckResult* inventory = context.Earlier(kInventoryCheck.id);
  if (inventory == nullptr || !inventory->data.contains("gpus")) return nullptr;
  const nlohmann::json& gpus = inventory->data["gpus"];
  if (!gpus.is_array() || index < 0 || index >= static_cast<int>(gpus.size())) return nullptr;
  return &gpus[index];
}

std::optional<Spread> TimingSpread(double rate, const nlohmann::json& figure) {
  if (!figure.is_object() || !figure.contains("repeats") || !figure["repeats"].is_number()) return std::nullopt;
  auto number = [&](const char* key) { return figure.contains(key) && figure[key].is_number() ? figure[key].get<double>() : 0.0; };
  std::optional<double> cv;
  if (figure.contains("cv") && figure["cv"].is_number()) cv = figure["cv"].get<double>();
  return SpreadOfRate(rate, number("median_ms"), number("min_ms"), number("max_ms"), figure["repeats"].get<int>(), cv);
}

std::string Figure(double value) {
  if (!std::isfinite(value)) return "—";
  if (std::fabs(value) >= 100) return fmt::format("{:.0f}", value);
  if (std::fabs(value) >= 10) return fmt::format("{:.1f}", value);
  return fmt::format("{:.2f}", value);
}

Text PayloadMethod(const nlohmann::json& payload) {
  const std::string en = payload.value("method", std::string());
  return Text(payload.value("method_ru", en), en);
}

}  // namespace labcheck::gpu

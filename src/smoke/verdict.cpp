#include "smoke/verdict.h"

#include <map>

#include <fmt/format.h>

#include "facts/statements.h"
#include "smoke/judge_common.h"
#include "smoke/judges.h"
#include "smoke/skip_reasons.h"
#include "smoke/smoke_hints.h"
#include "smoke/vllm_advice.h"

namespace labcheck::smoke {
namespace {

using RanJudge = CheckResult (*)(const SmokeTest&, const nlohmann::json&);

RanJudge JudgeFor(const std::string& name) {
  static const std::map<std::string, RanJudge> judges = {
      {"ddp", JudgeDistributed},      {"fsdp2", JudgeDistributed},
      {"llama_train", JudgeLlamaTrain}, {"hf_llama", JudgeHfLlama},
      {"lora", JudgeLora},            {"qlora", JudgeQlora},
      {"flash_attention", JudgeFlashAttention}, {"triton", JudgeTriton},
      {"torch_compile", JudgeTorchCompile}, {"vllm", JudgeVllm},
      {"unsloth", JudgeUnsloth},
  };
  auto it = judges.find(name);
  return it == judges.end() ? nullptr : it->second;
}

// A number member as the user reads it ("2", "16.5"), or "?".
std::string Seconds(const nlohmann::json& result, const char* key) {
  auto it = result.find(key);
  return it != result.end() && it->is_number() ? fmt::format("{:g}", it->get<double>()) : "?";
}

std::string FirstLine(const std::string& text, size_t max_chars = 300) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > max_chars ? line.substr(0, max_chars) + "…" : line;
}

// "rank 0: ddp step 1 of 5 (…); rank 1: hanging on purpose (…)"
std::string StagesText(const nlohmann::json& result) {
  std::string text;
  if (!result.contains("stages") || !result["stages"].is_object()) return text;
  for (const auto& [rank, stage] : result["stages"].items()) {
    text += (text.empty() ? "" : "; ") + ("rank " + rank + ": ") + (stage.is_string() ? stage.get<std::string>() : "?");
  }
  return text;
}

// "rank 1: SIGSEGV" / "rank 1: exit code 1"
std::string RankFailuresText(const nlohmann::json& result) {
  std::string text;
  if (!result.contains("ranks") || !result["ranks"].is_array()) return text;
  for (const auto& rank : result["ranks"]) {
    if (!rank.is_object()) continue;
    std::string what = StringOr(rank, "signal");
    if (what.empty() && rank.contains("exitcode") && rank["exitcode"].is_number_integer()) {
      what = fmt::format("exit code {}", rank["exitcode"].get<int>());
    }
    const std::string number = rank.contains("rank") ? rank["rank"].dump() : "?";
    text += (text.empty() ? "" : "; ") + ("rank " + number + ": ") + what;
  }
  return text;
}

// The first rank's own Python error, when one wrote it down before dying.
std::string RankErrorText(const nlohmann::json& result, std::string* traceback) {
  if (!result.contains("rank_errors") || !result["rank_errors"].is_object()) return {};
  for (const auto& [rank, error] : result["rank_errors"].items()) {
    *traceback += "rank " + rank + ":\n" + StringOr(error, "traceback") + "\n";
    return "rank " + rank + " (" + StringOr(error, "failed_stage", "?") + "): " + StringOr(error, "error_type") + ": " +
           StringOr(error, "error");
  }
  return {};
}

CheckResult ProbeError(const SmokeTest& test, const nlohmann::json& result) {
  const std::string failure = StringOr(result, "failure", "exception");
  const std::string error = StringOr(result, "error");
  std::string traceback = StringOr(result, "traceback", error);

  if (failure == "timeout") {
    const std::string budget = Seconds(result, "budget_s");
    return Failed(test.check_id,
                  T("тест не уложился в свой бюджет времени (" + budget + " с) и был прерван",
                    "the test did not finish within its time budget (" + budget + " s) and was stopped"),
                  HintForError(test.name, traceback), traceback);
  }
  if (failure == "hang") {
    const std::string watchdog = Seconds(result, "watchdog_s");
    const std::string stages = StagesText(result);
    return Failed(test.check_id,
                  T("ранги не закончили за " + watchdog + " с и были остановлены; где стояли: " + stages,
                    "the ranks did not finish within " + watchdog + " s and were killed; where they stood: " + stages),
                  HintForDistributedFailure(StringOr(result, "backend")), error);
  }
  if (failure == "rank_failed") {
    const std::string ranks = RankFailuresText(result);
    std::string rank_traceback;
    const std::string rank_error = RankErrorText(result, &rank_traceback);
    const std::string detail = rank_error.empty() ? StagesText(result) : rank_error;
    Text hint = HintForError(test.name, rank_traceback + error);
    return Failed(test.check_id,
                  T("ранг упал (" + ranks + "); " + detail, "a rank failed (" + ranks + "); " + detail),
                  hint, rank_traceback.empty() ? error : rank_traceback + "\n" + error);
  }
  const std::string stage = StringOr(result, "stage", failure);
  const std::string type = StringOr(result, "error_type");
  const std::string message = FirstLine((type.empty() ? "" : type + ": ") + error);
  return Failed(test.check_id, T("ошибка (" + stage + "): " + message, "error (" + stage + "): " + message),
                HintForError(test.name, traceback), traceback);
}

CheckResult FromResult(const SmokeTest& test, const nlohmann::json& result, const std::string& python) {
  ProbeFields f(result);
  const std::string status = f.String("status");
  if (!f.ok()) return Incomplete(test, f, result);
  if (status == "skip") {
    return Skipped(test.check_id, SkipReasonText(result, python),
                   HintForSkip(test.name, StringOr(result, "reason"), StringOr(result, "package")));
  }
  if (status == "error") return ProbeError(test, result);
  if (status == "ran") {
    if (RanJudge judge = JudgeFor(test.name)) return judge(test, result);
  }
  return Failed(test.check_id,
                T("внутренняя ошибка: проба вернула статус «" + status + "»",
                  "internal error: the probe returned status '" + status + "'"),
                T("пришлите отчёт авторам lab_check", "please send the report to the lab_check authors"), result.dump());
}

// The probe's word that PyTorch had no card: it ran on the CPU (not by choice: one GPU and
// LABCHECK_SMOKE_FORCE_CPU are choices of their own), or skipped with "no_gpu".
bool RanOnTheCpu(const nlohmann::json& probe) {
  const std::string because = StringOr(probe, "cpu_because");
  return StringOr(probe, "status") == "ran" && StringOr(probe, "device") == "cpu" && because != "one_gpu" && because != "forced_cpu";
}
bool SkippedForNoGpu(const nlohmann::json& probe) {
  return StringOr(probe, "status") == "skip" && StringOr(probe, "reason") == "no_gpu";
}

// Why PyTorch had no card, in the report's one wording (facts/statements.h), and a WARN with the
// fix where the machine has cards that it left idle; a PASS on a machine without a GPU, as the
// course page describes.
void SayWhyNoGpu(const nlohmann::json& probe, const facts::RunFacts* run, CheckResult& out) {
  const bool cpu = RanOnTheCpu(probe), skipped = SkippedForNoGpu(probe);
  if (!cpu && !skipped) return;
  const std::optional<Text> known = run != nullptr ? facts::WhyTorchHasNoGpu(*run) : std::nullopt;
  const Text why = known.value_or(T("PyTorch не видит ни одной видеокарты", "PyTorch sees no CUDA device"));
  const bool idle_cards = run != nullptr && run->cards.AnyGpu();
  if (skipped) {
    out.reason = T("нужна GPU: " + why.ru, "needs a GPU: " + why.en);
    if (idle_cards) out.hint = facts::FixTorchHasNoGpu(*run);
    return;
  }
  out.summary = T(out.summary.ru + "; на CPU: " + why.ru, out.summary.en + "; on the CPU: " + why.en);
  if (!idle_cards || out.outcome != Outcome::Pass) return;
  out.outcome = Outcome::Warn;
  out.reason = T(fmt::format("шёл на CPU, хотя у машины есть GPU ({}): {}", run->cards.DriverCount(), why.ru),
                 fmt::format("ran on the CPU although the machine has GPUs ({}): {}", run->cards.DriverCount(), why.en));
  out.hint = facts::FixTorchHasNoGpu(*run);
}

// The probe found no torch; where the report's facts say it is not installed, their words and fix
// (the same as env.python's), not a second wording of the same cause.
void SayTorchMissing(const nlohmann::json& probe, const facts::RunFacts* run, CheckResult& out) {
  if (run == nullptr || StringOr(probe, "status") != "skip" || StringOr(probe, "reason") != "no_torch") return;
  if (const std::optional<Text> missing = facts::TorchMissing(run->torch)) {
    out.reason = *missing;
    out.hint = facts::FixTorchMissing(run->torch);
  }
}

}  // namespace

CheckResult JudgeOutcome(const SmokeTest& test, const TestOutcome& outcome, const nlohmann::json& facts,
                         const std::string& python, const facts::RunFacts* run) {
  CheckResult out;
  if (!outcome.result) {
    // The ranks run over NCCL where there are two GPUs or more (smoke_dist_launch.choose_layout).
    const bool nccl = facts.contains("devices") && facts["devices"].is_array() && facts["devices"].size() >= 2;
    const Text hint = test.launch == Launch::Torchrun ? HintForDistributedFailure(nccl ? "nccl" : "gloo")
                                                      : HintForError(test.name, outcome.lost_error);
    out = Failed(test.check_id, outcome.lost_reason, hint, outcome.lost_error);
    if (outcome.cancelled) out.outcome = Outcome::NotRun;
  } else {
    out = FromResult(test, *outcome.result, python);
    SayWhyNoGpu(*outcome.result, run, out);
    SayTorchMissing(*outcome.result, run, out);
    out.data["probe"] = *outcome.result;
  }
  if (test.name == "vllm") AddVllmAdvice(out, facts, run);
  return out;
}

}  // namespace labcheck::smoke

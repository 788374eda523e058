#include "gpu/job_envelope.h"

namespace labcheck::gpu {

nlohmann::json TextJson(const Text& text) { return {{"ru", text.ru}, {"en", text.en}}; }

Text TextFromJson(const nlohmann::json& value) {
  if (value.is_string()) return Text(value.get<std::string>());
  if (!value.is_object()) return {};
  return Text(value.value("ru", std::string()), value.value("en", std::string()));
}

nlohmann::json OkEnvelope() { return {{"outcome", "ok"}}; }

nlohmann::json SkipEnvelope(const Text& reason, const Text& hint, const std::string& error) {
  return {{"outcome", "skip"}, {"reason", TextJson(reason)}, {"hint", TextJson(hint)}, {"error", error}};
}

nlohmann::json FailEnvelope(const Text& reason, const Text& hint, const std::string& error) {
  return {{"outcome", "fail"}, {"reason", TextJson(reason)}, {"hint", TextJson(hint)}, {"error", error}};
}

std::optional<CheckResult> EnvelopeProblem(const std::string& check_id, const ChildJobOutcome& outcome) {
  const ChildOutcome& process = outcome.process;
  if (process.cancelled) {
    CheckResult r;
    r.id = check_id;
    r.outcome = Outcome::NotRun;
    r.reason = T("прервано", "interrupted");
    return r;
  }
  if (!outcome.result.ok()) {
    const std::string error = outcome.result.status().message();
    if (process.timed_out) {
      return Failed(check_id,
                    T("замер на GPU завис и был остановлен по тайм-ауту", "the GPU measurement hung and was stopped at its timeout"),
                    T("проверьте nvidia-smi: карта может быть занята другим процессом или «зависла»; "
                      "при медленной машине увеличьте --timeout-scale",
                      "check nvidia-smi: the card may be busy with another process or stuck; on a slow machine raise "
                      "--timeout-scale"),
                    error);
    }
    if (process.term_signal != 0) {
      return Failed(check_id,
                    T("процесс замера на GPU упал (" + process.Describe() + ")",
                      "the GPU measurement process crashed (" + process.Describe() + ")"),
                    T("обычно это несовместимость драйвера и библиотек CUDA: обновите драйвер (шаг 2) или PyTorch (шаг 3)",
                      "usually the driver and the CUDA libraries do not match: update the driver (step 2) or PyTorch (step 3)"),
                    error);
    }
    return Failed(check_id, T("замер на GPU не удался", "the GPU measurement failed"), {}, error);
  }
  const nlohmann::json& j = outcome.result.value();
  const std::string verdict = j.value("outcome", std::string("fail"));
  if (verdict == "ok") return std::nullopt;
  Text reason = TextFromJson(j.value("reason", nlohmann::json()));
  Text hint = TextFromJson(j.value("hint", nlohmann::json()));
  std::string error = j.value("error", std::string());
  CheckResult r = verdict == "skip" ? Skipped(check_id, reason, hint) : Failed(check_id, reason, hint, error);
  r.error = error;
  if (j.contains("libraries")) r.data["libraries"] = j["libraries"];
  if (j.contains("driver_state")) r.data["driver_state"] = j["driver_state"];
  return r;
}

}  // namespace labcheck::gpu

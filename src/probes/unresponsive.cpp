#include "probes/unresponsive.h"

#include <fmt/format.h>

namespace labcheck::probes {

Text Unresponsive::Reason() const {
  if (!ended.empty()) {
    return T(fmt::format("интерпретатор {} не работает: {}, ещё до кода проверки", python, ended),
             fmt::format("the interpreter {} does not work: {}, before any of the check's code ran", python, ended));
  }
  if (stage.empty()) {
    return T(fmt::format("интерпретатор {} не ответил за {:.0f} с: завис сам интерпретатор, ещё до кода проверки",
                         python, waited_s),
             fmt::format("the interpreter {} did not answer within {:.0f} s: the interpreter itself hangs, "
                         "before any of the check's code ran",
                         python, waited_s));
  }
  return T(fmt::format("интерпретатор {} не ответил за {:.0f} с: завис `{}`", python, waited_s, stage),
           fmt::format("the interpreter {} did not answer within {:.0f} s: `{}` hangs", python, waited_s, stage));
}

Text Unresponsive::Hint() const {
  // What to run by hand, and what usually causes it, for each way an interpreter fails.
  std::string command;
  Text causes;
  if (!ended.empty()) {
    command = fmt::format("{} -c \"import sys; print(sys.version)\"", python);
    causes = T("Частые причины: у virtualenv пропал базовый Python (пересоздайте окружение), путь ведёт не к "
               "Python; укажите рабочий: --python /путь/к/python",
               "Common causes: the virtualenv's base Python is gone (recreate the environment), the path is "
               "not a Python; name a working one: --python /path/to/python");
  } else if (stage.empty()) {
    command = fmt::format("timeout 30 {} -c \"print('ok')\"", python);
    causes = T("Если и это молчит, интерпретатор или его окружение лежат на недоступном диске "
               "(сетевая домашняя папка?); укажите другой: --python /путь/к/python",
               "If that hangs too, the interpreter or its environment is on a disk that does not "
               "answer (a network home directory?); name another one: --python /path/to/python");
  } else {
    command = fmt::format("timeout 30 {} -c \"{}\"", python, stage);
    causes = T("Частые причины: драйвер NVIDIA в плохом состоянии (зависает ли nvidia-smi?), "
               "пакет на недоступном сетевом диске; после исправления запустите lab_check снова",
               "Common causes: the NVIDIA driver is in a bad state (does nvidia-smi hang too?), a "
               "package on a network disk that does not answer; run lab_check again once it is fixed");
  }
  return T("Проверьте вручную: " + command + ". " + causes.ru, "Check it by hand: " + command + ". " + causes.en);
}

nlohmann::json Unresponsive::ToJson() const {
  nlohmann::json j = {{"python", python}, {"stage", stage}, {"waited_s", waited_s}};
  if (!ended.empty()) j["ended"] = ended;
  return j;
}

std::optional<Unresponsive> Unresponsive::FromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("python") || !j["python"].is_string()) return std::nullopt;
  Unresponsive u;
  u.python = j["python"].get<std::string>();
  u.stage = j.value("stage", "");
  u.waited_s = j.value("waited_s", 0.0);
  u.ended = j.value("ended", "");
  return u;
}

std::optional<Unresponsive> UnresponsiveIn(const ProbeRun& run, const std::string& python) {
  if (!run.process.not_ready) return std::nullopt;
  Unresponsive u;
  u.python = python;
  u.waited_s = run.process.duration_s;
  const std::string& out = run.process.out;
  if (size_t at = out.rfind(kStageMarker); at != std::string::npos) {
    const size_t start = at + kStageMarker.size();
    const size_t end = out.find('\n', start);
    u.stage = out.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  return u;
}

std::optional<Unresponsive> EndedBeforeHandshake(const ProbeRun& run, const std::string& python) {
  const ChildOutcome& p = run.process;
  if (p.timed_out || p.cancelled || p.not_ready || p.exited_ok() || run.result.ok()) return std::nullopt;
  if (p.started && p.out.find(kAliveMarker) != std::string::npos) return std::nullopt;
  Unresponsive u;
  u.python = python;
  u.waited_s = p.duration_s;
  u.ended = p.Describe();  // "exit code 1", "could not start: …"
  return u;
}

}  // namespace labcheck::probes

#include "node_check/slurm/slurm_policy.h"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "node_check/slurm/needs_reboot.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

void Say(Lang lang, const Text& text) { std::fprintf(stderr, "lab_check node-check: %s\n", text.In(lang).c_str()); }

// What one run knows before deciding.
struct Gathered {
  std::vector<SlurmNode> nodes;
  bool nodes_read = false;
  std::optional<ResumeState> state;
  bool state_ok = true;
  double slurm_s = 0;  // spent reading the nodes
};

Gathered Gather(const std::string& scontrol, const std::string& state_path, bool healthy, double budget_s, Lang lang) {
  Gathered g;
  const auto started = std::chrono::steady_clock::now();
  DrainOutcome show = RunScontrol(scontrol, ShowNodesArgv(), ShowNodesTimeoutS(budget_s));
  g.slurm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  g.nodes_read = show.ok;
  if (show.ok) g.nodes = ParseScontrolNodes(show.out);
  else if (healthy)
    Say(lang, T(fmt::format("не удалось прочитать узлы Slurm ({} — {}): не понять, выводил ли его lab_check; не возвращён", show.command, show.error),
                fmt::format("cannot read Slurm's nodes ({} — {}): whether lab_check drained it is unknown; not resumed", show.command, show.error)));
  else
    Say(lang, T(fmt::format("не удалось прочитать узлы Slurm ({} — {}): чужая причина и предел --drain-cap не проверены", show.command, show.error),
                fmt::format("cannot read Slurm's nodes ({} — {}): another's reason and --drain-cap are not checked", show.command, show.error)));
  Result<std::optional<ResumeState>> state = ReadResumeState(state_path);
  if (state.ok()) g.state = state.value();
  else {
    g.state_ok = false;
    Say(lang, T("--state-dir: не удалось прочитать " + state.status().message(), "--state-dir: cannot read " + state.status().message()));
  }
  return g;
}

// The line that says what was decided when nothing is run.
Text Explain(const DrainDecision& d, const DrainSettings& s) {
  const std::string reason = d.slurm ? d.slurm->reason : "";
  switch (d.action) {
    case DrainAction::HeldByCap:
      return T(fmt::format("достигнут предел --drain-cap: {} из {} узлов раздела {} выведены lab_check (предел {}); узел не выведен",
                           d.cap->drained, d.cap->nodes, d.cap->partition, s.policy.cap.Text()),
               fmt::format("drain cap reached: {} of {} nodes of {} drained by lab_check (cap {}); the node is not drained",
                           d.cap->drained, d.cap->nodes, d.cap->partition, s.policy.cap.Text()));
    case DrainAction::LeftAsIs:
      return T("узел уже выведен из работы не lab_check: " + reason + "; оставлен как есть",
               "already drained by someone else: " + reason + "; left as it is");
    case DrainAction::WaitHealthyRuns:
      return T(fmt::format("выведен lab_check; здоров {} раз подряд из {} (--resume-after): пока не возвращён", d.next.healthy_runs,
                           s.policy.resume_after),
               fmt::format("drained by lab_check; healthy {} run(s) in a row of {} (--resume-after): not resumed yet", d.next.healthy_runs,
                           s.policy.resume_after));
    case DrainAction::WaitReboot:
      return T("выведен lab_check из-за того, что проходит только перезагрузкой, а узел с тех пор не перезагружался (boot id тот же): не возвращён",
               "drained by lab_check over findings that clear only with a reboot, and the node has not rebooted since (same boot id): not resumed");
    case DrainAction::NoRecordForReboot:
      return T(fmt::format("выведен lab_check из-за того, что проходит только перезагрузкой ({}), а в {} нет записи, в какой загрузке: "
                           "не возвращён; после перезагрузки верните его сами: scontrol update nodename={} state=resume",
                           reason, s.state_dir, s.node),
               fmt::format("drained by lab_check over findings that clear only with a reboot ({}), and {} holds no record of the boot it "
                           "was drained in: not resumed; after a reboot resume it by hand: scontrol update nodename={} state=resume",
                           reason, s.state_dir, s.node));
    case DrainAction::NotWholeNode:
      return T("выведен lab_check, но проверены только GPU задачи: узел выводили, может быть, из-за другой карты; не возвращён",
               "drained by lab_check, but only the job's GPUs were judged: the drain may be over another card; not resumed");
    default: return Text();
  }
}

// Drain or resume; false when it was due and did not happen.
bool RunUpdate(const DrainDecision& d, const std::string& reason, const DrainSettings& s, const std::string& scontrol,
               double timeout_s, Lang lang, json& drain) {
  const bool resume = d.action == DrainAction::Resume;
  DrainOutcome u = RunScontrol(scontrol, resume ? ResumeArgv(s.node) : DrainArgv(s.node, reason), timeout_s);
  drain.update({{"command", u.command}, {"ran", u.slurm_present}, {"ok", u.ok}, {"error", u.error}});
  if (!u.ok)
    Say(lang, T("не удалось: " + u.command + " — " + u.error, "failed: " + u.command + " — " + u.error));
  else if (resume)
    Say(lang, T("снова здоров, возвращён в работу; выполнено: " + u.command + " (причина была: " + d.slurm->reason + ")",
                "healthy again, resumed; ran: " + u.command + " (its reason was: " + d.slurm->reason + ")"));
  else
    Say(lang, T("выполнено: " + u.command, "ran: " + u.command));
  return u.ok;
}

bool ChangeState(const DrainDecision& d, const std::string& path, Lang lang) {
  if (d.state_change == StateChange::Keep) return true;
  const Status s = d.state_change == StateChange::Write ? WriteResumeState(path, d.next) : RemoveResumeState(path);
  if (!s.ok())
    Say(lang, T("--state-dir: не удалось записать " + s.message() + ". Укажите другое место",
                "--state-dir: cannot write " + s.message() + ". Choose another place"));
  return s.ok();
}

json DrainJson(const DrainDecision& d, const DrainSettings& s, const std::string& state_path) {
  json j = {{"action", DrainActionKey(d.action)}, {"resume_after", s.policy.resume_after}, {"drain_cap", s.policy.cap.Text()},
            {"state_file", state_path}, {"command", ""}, {"ran", false}, {"ok", false}, {"error", ""}};
  if (d.slurm) j["slurm"] = {{"state", d.slurm->state}, {"reason", d.slurm->reason}, {"partitions", d.slurm->partitions}};
  if (d.cap)
    j["cap"] = {{"partition", d.cap->partition}, {"drained_by_lab_check", d.cap->drained}, {"nodes", d.cap->nodes},
                {"allowed", d.cap->allowed}, {"reached", d.cap->reached()}};
  if (d.action == DrainAction::WaitHealthyRuns) j["healthy_runs"] = d.next.healthy_runs;
  return j;
}

}  // namespace

double HealthCheckSlurmBudgetS(double elapsed_s) { return std::max(kSlurmBudgetS, kSlurmdHealthKillS - kAfterSlurmS - elapsed_s); }

double ShowNodesTimeoutS(double budget_s) { return std::max(kShowNodesTimeoutS, 0.4 * budget_s); }

DrainResult ApplyDrainPolicy(const NodeVerdict& verdict, const DrainSettings& s, const EnvLookup& env, Lang lang, json& report) {
  DrainResult result;
  if (verdict.state == NodeState::CannotTell) return result;
  const bool healthy = verdict.state == NodeState::Healthy;
  const std::string scontrol = FindScontrol(s.scontrol, env);
  const std::string reason = healthy ? "" : DrainReason(FailingFindingsText(verdict, lang));
  if (scontrol.empty()) {
    if (healthy) return result;  // nothing this run could have resumed
    const std::string command = CommandLine(DrainArgv(s.node, reason));
    report["drain"] = {{"action", "no_slurm"}, {"command", command}, {"ran", false}, {"ok", false},
                       {"error", "no scontrol on PATH or in the usual folders: no Slurm here"}};
    Say(lang, T("Slurm не найден (scontrol нет ни в PATH, ни в /usr/bin, /usr/local/bin, /opt/slurm/bin; укажите --scontrol ПУТЬ), узел не выведен: " + command,
                "no Slurm here (no scontrol on PATH nor in /usr/bin, /usr/local/bin, /opt/slurm/bin; give --scontrol PATH), the node is not drained: " + command));
    result.failed = true;
    return result;
  }
  const std::string state_path = ResumeStatePath(s.state_dir, s.node);
  const Gathered g = Gather(scontrol, state_path, healthy, s.slurm_budget_s, lang);
  result.state_written = g.state_ok;
  DrainInputs in{healthy, !healthy && NeedsReboot(verdict), s.whole_node, s.node, g.nodes_read ? &g.nodes : nullptr, g.state,
                 ReadBootId(env)};
  const DrainDecision d = DecideDrain(in, s.policy);
  json drain = DrainJson(d, s, state_path);
  bool update_failed = false;
  if (d.action == DrainAction::Drain || d.action == DrainAction::Resume) {
    update_failed = !RunUpdate(d, reason, s, scontrol, std::max(1.0, s.slurm_budget_s - g.slurm_s), lang, drain);
  } else if (d.action != DrainAction::None) {
    Say(lang, Explain(d, s));
  }
  result.failed = update_failed || d.action == DrainAction::HeldByCap;
  // A drain or resume that failed leaves the state as it was (a reboot-class drain keeps its boot
  // id): the next run decides again.
  if (!update_failed && !ChangeState(d, state_path, lang)) result.state_written = false;
  if (d.action != DrainAction::None || !healthy) report["drain"] = drain;
  return result;
}

}  // namespace labcheck::node_check

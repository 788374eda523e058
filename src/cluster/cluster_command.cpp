#include "cluster/cluster_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cluster/cluster_merge.h"
#include "cluster/host_list.h"
#include "cluster/rank_run.h"
#include "core/build_commit.h"
#include "platform/files.h"
#include "report/anonymize.h"
#include "report/json_writer.h"
#include "report/publish.h"
#include "report/report.h"
#include "report/terminal_writer.h"
#include "runner/cancel.h"

namespace labcheck::cluster {

namespace {

// Rank 0 says on stderr how the world was found, before anything can hang.
void AnnounceWorld(const LaunchEnv& launch, const Rendezvous& rendezvous, bool ru) {
  if (launch.launcher == Launcher::None)
    std::fprintf(stderr, ru ? "lab_check allreduce: лаунчер не найден — один ранг на GPU 0. Все GPU одной машины проверяет "
                              "lab_check; кластер — srun, mpirun или torchrun (README, «Cluster»)\n"
                            : "lab_check allreduce: no launcher found, so one rank on GPU 0. lab_check checks all GPUs of one "
                              "machine; for a cluster use srun, mpirun or torchrun (README, \"Cluster\")\n");
  std::fprintf(stderr, "lab_check allreduce: %d ranks (%s), NCCL_COMM_ID %s (%s)\n", launch.world_size,
               LauncherName(launch.launcher), rendezvous.CommId(kSweepPortOffset).c_str(), rendezvous.source.c_str());
}

RankRunOptions RankRunOptionsFor(const ClusterOptions& options, const std::string& self_exe, const std::string& work_dir) {
  RankRunOptions run;
  run.self_exe = self_exe;
  run.quick = options.quick;
  run.sweep_timeout_s = options.timeout_s;
  run.stall_s = options.stall_s;
  if (options.max_mib) run.max_bytes = *options.max_mib << 20;
  run.work_dir = work_dir;
  return run;
}

// --rank-reports: this rank's own block, anonymised, beside the journal.
void WriteRankReport(int rank, const nlohmann::json& block, const Identity& who) {
  const std::string path = fmt::format("journal/cluster-rank{}.json", rank);
  Status s = WriteFileAtomically(path, AnonymizeJson(block, who).dump(2) + "\n");
  if (!s.ok()) std::fprintf(stderr, "lab_check allreduce: rank %d: %s\n", rank, s.message().c_str());
}

// Rank 0's merge of every block it has, and how the run was launched.
CheckResult MergedResult(const LaunchEnv& launch, const Rendezvous& rendezvous, const RankRunResult& mine,
                         std::chrono::steady_clock::time_point started) {
  MergeInput merge;
  merge.world_size = launch.world_size;
  if (mine.gathered) {
    for (const nlohmann::json& b : *mine.gathered) merge.blocks.push_back(b);
  } else {
    merge.blocks.push_back(mine.mine);
    merge.gather_error = mine.gather_error;
  }
  CheckResult result = MergeClusterRun(merge);
  result.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.data["launcher"] = LauncherName(launch.launcher);
  // Under srun: the job and the nodes Slurm gave it, as Slurm names them (this host's own name is
  // anonymised below, like every host name in a report; the others are the cluster's node names,
  // which an administrator needs to find the slow node).
  if (launch.launcher == Launcher::Slurm) {
    Result<std::vector<std::string>> hosts = ExpandHostList(launch.node_list);
    result.data["slurm"] = {{"job_id", launch.job_id ? nlohmann::json(*launch.job_id) : nlohmann::json(nullptr)},
                            {"node_list", launch.node_list},
                            {"nodes", hosts.ok() ? nlohmann::json(hosts->size()) : nlohmann::json(nullptr)}};
  }
  result.data["rendezvous"] = rendezvous.source;
  return result;
}

}  // namespace

int RunClusterAllReduce(const ClusterOptions& options, Lang lang, const std::string& self_exe) {
  const EnvLookup env = ProcessEnvironment();
  Result<LaunchEnv> launch = ReadLaunchEnv(env);
  if (!launch.ok()) {
    std::fprintf(stderr, "lab_check allreduce: %s\n", launch.status().message().c_str());
    return kExitUsage;
  }
  Result<Rendezvous> rendezvous = ChooseRendezvous(*launch, env, options.port);
  if (!rendezvous.ok()) {
    std::fprintf(stderr, "lab_check allreduce: %s\n", rendezvous.status().message().c_str());
    return kExitUsage;
  }
  const bool leader = launch->rank == 0;
  if (leader) AnnounceWorld(*launch, *rendezvous, lang == Lang::Ru);
  const char* sys_root = std::getenv("LABCHECK_SYS_ROOT");  // tests: a fake /sys
  const RankFacts facts = ReadRankFacts(*launch, env, sys_root ? sys_root : "/sys");
  Result<std::string> work_dir = MakePrivateTempDir("lab_check_cluster");
  if (!work_dir.ok()) {
    std::fprintf(stderr, "lab_check allreduce: %s\n", work_dir.status().message().c_str());
    return kExitReportNotWritten;
  }

  Report report;
  report.lang = lang;
  report.meta.tool_version = LAB_CHECK_VERSION;
  report.meta.tool_commit = std::string(BuildCommit());
  report.meta.started_at = UtcTimestamp();
  report.meta.quick = options.quick;
  const CancelToken cancel = InstallInterruptHandlers();
  const auto started = std::chrono::steady_clock::now();
  RankRunResult mine = RunRank(*launch, facts, *rendezvous, RankRunOptionsFor(options, self_exe, *work_dir), cancel);
  RemoveTree(*work_dir);
  const Identity who = Identity::OfThisProcess();

  if (options.rank_reports) WriteRankReport(launch->rank, mine.mine, who);
  // The other ranks are done: rank 0 has their blocks. They exit 0 whatever happened, because a
  // launcher that sees a rank fail (torchrun, mpirun) kills the rest, rank 0 too, before it writes.
  if (!leader) return cancel.cancelled() ? kExitInterrupted : kExitOk;

  report.checks.push_back(MergedResult(*launch, *rendezvous, mine, started));
  report.meta.duration_s = report.checks.back().duration_s;
  report.meta.finished_at = UtcTimestamp();
  report.meta.interrupted = cancel.cancelled();
  PublishOptions publish;
  publish.command = "lab_check allreduce";
  publish.markdown_path = options.out;
  publish.json_stdout = options.json;
  return PublishReport(report, publish);
}

void AddClusterSubcommand(CLI::App& app, const Lang* lang, Lang help_lang, const std::string& self_exe, int* exit_code) {
  auto options = std::make_shared<ClusterOptions>();
  auto h = [help_lang](const char* ru, const char* en) { return T(ru, en).In(help_lang); };
  CLI::App* cmd = app.add_subcommand(
      "allreduce", h("NCCL all-reduce по всем узлам: один процесс на GPU под srun, mpirun или torchrun; ранг 0 пишет общий отчёт",
                     "NCCL all-reduce across nodes: one process per GPU under srun, mpirun or torchrun; rank 0 writes one report"));
  cmd->add_flag("--json", options->json, h("только JSON в stdout (ранг 0)", "JSON only on stdout (rank 0)"));
  cmd->add_flag("--quick", options->quick, h("только 1, 16, 256 МиБ", "1, 16, 256 MiB only"));
  cmd->add_option("--out", options->out, h("Markdown-отчёт ранга 0; JSON ляжет рядом", "Markdown report of rank 0; the JSON goes beside it"))->capture_default_str();
  cmd->add_option("--port", options->port, h("порт бутстрапа NCCL (сбор результатов идёт через следующий)", "NCCL bootstrap port (the gather uses the next one)"))->check(CLI::Range(1, 65534));
  cmd->add_option("--timeout", options->timeout_s, h("секунд на прогон одного ранга; ранг, который ещё идёт, считается зависшим", "seconds for a rank's sweep; a rank still running then counts as hung"))
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--stall-s", options->stall_s, h("секунд, которые одна коллективная операция может стоять без прогресса", "seconds one collective may make no progress"))->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--max-mib", options->max_mib, h("самый большой размер прогона, МиБ", "largest size of the sweep, MiB"))->check(CLI::Range(1, 1 << 20));
  cmd->add_flag("--rank-reports", options->rank_reports, h("каждый ранг пишет ещё и journal/cluster-rank<R>.json", "every rank also writes journal/cluster-rank<R>.json"));
  cmd->callback([options, lang, self_exe, exit_code] { *exit_code = RunClusterAllReduce(*options, *lang, self_exe); });
}

}  // namespace labcheck::cluster

#include "node_check/node_check_command.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpu/gpu_checks.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "node_check/fabric_retry.h"
#include "node_check/job_gpus.h"
#include "node_check/node_report.h"
#include "node_check/node_verdict.h"
#include "gpu/bench/numa_placement.h"  // SysRoot
#include "node_check/network_ports.h"
#include "node_check/pci_bus_scan.h"
#include "node_check/prometheus_metrics.h"
#include "node_check/slurm_drain.h"
#include "platform/files.h"
#include "runner/cancel.h"
#include "runner/child_job.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

struct Options {
  NodeExpectations expect;
  std::string mig = "off";
  bool json = false;
  bool drain = false;
  std::string node;
  std::string scontrol;
  std::string out;
  std::string prometheus;
  std::string kernel_log;
  std::vector<std::string> site_packages;
  std::optional<double> timeout_s;  // default: kHealthCheckTimeoutS in slurmd's health check, else kDefaultTimeoutS
};

std::optional<std::string> Env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v ? std::optional<std::string>(v) : std::nullopt;
}

// What the child's envelope says when it is not "ok": no driver or no GPU is "cannot tell",
// unless GPUs were expected; a driver that is there but fails (cuInit 802: fabric manager down),
// a crash or a hang is a sick node.
NodeVerdict FromEnvelope(const CheckResult& problem, const NodeExpectations& expect) {
  NodeVerdict v;
  if (problem.outcome == Outcome::Skip && !(expect.gpus && *expect.gpus > 0)) {
    v.state = NodeState::CannotTell;
    v.cannot_tell = problem.reason;
    return v;
  }
  v.state = NodeState::Unhealthy;
  Text reason = problem.reason;
  if (problem.outcome == Outcome::Skip) reason = T(fmt::format("нет GPU (ожидалось {}): {}", *expect.gpus, problem.reason.ru),
                                                   fmt::format("no GPU (expected {}): {}", *expect.gpus, problem.reason.en));
  v.findings.push_back({-1, "driver", reason});
  return v;
}

// The simulator (tests/sim) says on the child's stderr why a machine profile did not load (an
// unknown key, a missing base); without its lines the user would see only "cuInit 999". Test
// equipment must say what is wrong with it, so node-check passes them on.
void RelaySimulatorMessages(const ChildJobOutcome& outcome) {
  size_t at = 0;
  const std::string& err = outcome.process.err;
  while (at < err.size()) {
    size_t end = err.find('\n', at);
    if (end == std::string::npos) end = err.size();
    const std::string line = err.substr(at, end - at);
    if (line.rfind("nvsim: ", 0) == 0) std::fprintf(stderr, "%s\n", line.c_str());
    at = end + 1;
  }
}

// True when the node was drained.
bool DrainIfUnhealthy(const NodeVerdict& verdict, const std::string& node, const std::string& scontrol, Lang lang, json& report) {
  const bool ru = lang == Lang::Ru;
  const std::string findings = VerdictLine(verdict, lang).substr(std::string("FAIL: ").size());
  DrainOutcome d = Drain(FindScontrol(scontrol, Env), node, DrainReason(findings));
  report["drain"] = {{"command", d.command}, {"ran", d.slurm_present}, {"ok", d.ok}, {"error", d.error}};
  if (!d.slurm_present)
    std::fprintf(stderr, ru ? "lab_check node-check: Slurm не найден (scontrol нет ни в PATH, ни в /usr/bin, /usr/local/bin, /opt/slurm/bin; "
                              "укажите --scontrol ПУТЬ), узел не выведен: %s\n"
                            : "lab_check node-check: no Slurm here (no scontrol on PATH nor in /usr/bin, /usr/local/bin, /opt/slurm/bin; "
                              "give --scontrol PATH), the node is not drained: %s\n",
                 d.command.c_str());
  else if (d.ok)
    std::fprintf(stderr, ru ? "lab_check node-check: выполнено: %s\n" : "lab_check node-check: ran: %s\n", d.command.c_str());
  else
    std::fprintf(stderr, ru ? "lab_check node-check: не удалось: %s — %s\n" : "lab_check node-check: failed: %s — %s\n",
                 d.command.c_str(), d.error.c_str());
  return d.ok;
}

// --out and --prometheus; false when one could not be written (said on stderr: exit 3, as the
// check command's report that cannot be written).
bool WriteFiles(const Options& o, const std::string& node, const json& report, const NodeVerdict& verdict,
                const json& payload, Lang lang) {
  const bool ru = lang == Lang::Ru;
  bool written = true;
  auto say = [&](const char* flag, const Status& s) {
    if (s.ok()) return;
    written = false;
    std::fprintf(stderr, ru ? "lab_check node-check: %s: не удалось записать %s. Укажите другое место\n"
                            : "lab_check node-check: %s: cannot write %s. Choose another place\n",
                 flag, s.message().c_str());
  };
  if (!o.out.empty()) {
    std::string path = o.out;
    for (size_t at; (at = path.find("{node}")) != std::string::npos;) path.replace(at, 6, node);
    say("--out", WriteFileAtomically(path, report.dump(2) + "\n"));
  }
  if (!o.prometheus.empty()) {
    const double now_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    say("--prometheus", WritePrometheusFile(o.prometheus, PrometheusText(verdict, payload, now_s)));
  }
  return written;
}

// What sysfs says beside the driver: the cards on the PCI bus and the network ports (issue 45).
void AddSysfsFacts(json& payload, const json& ports_before) {
  const bool simulated = payload.value("inventory", json::object()).value("simulated", false);
  payload["pci_bus"] = PciBusFacts(Env, simulated);
  if (std::optional<std::string> root = GateSysRoot(Env, simulated))
    payload["network_ports"] = WithCounterGrowth(ports_before, ReadNetworkPorts(*root));
  else
    payload["network_ports"] = {{"na", "a simulated machine: the real /sys is not its network (set LABCHECK_SYS_ROOT)"}};
}

int ExitCode(NodeState state) {
  switch (state) {
    case NodeState::Healthy: return kExitHealthy;
    case NodeState::Unhealthy: return kExitUnhealthy;
    case NodeState::CannotTell: return kExitCannotTell;
  }
  return kExitCannotTell;
}

std::vector<std::string> ChildArgs(const Options& o) {
  std::vector<std::string> args;
  for (const std::string& dir : o.site_packages) args.insert(args.end(), {"--site-packages", dir});
  if (!o.kernel_log.empty()) args.insert(args.end(), {"--kernel-log", o.kernel_log});
  return args;
}

int Run(Options o, Lang lang, const std::string& self_exe) {
  const bool ru = lang == Lang::Ru;
  const auto started = std::chrono::steady_clock::now();
  o.expect.mig = o.mig == "on";
  // Under a job, its GPUs are what is judged and expected (job_gpus.h): a shared node's other
  // GPUs and their jobs' processes are none of this job's business.
  const std::optional<JobGpus> job = JobGpusFromEnv(Env);
  if (job) o.expect.gpus = job->count;
  RegisterGpuChildJobs();
  // The ports' counters before the check's load: growth across it is a link flapping now.
  const json ports_before = ReadNetworkPorts(gpu::SysRoot());
  const CancelToken cancel = InstallInterruptHandlers();
  const double timeout_s = o.timeout_s.value_or(InHealthCheckContext(Env) ? kHealthCheckTimeoutS : kDefaultTimeoutS);
  int fabric_retries = 0;
  ChildJobOutcome outcome = RunWhileFabricStarts(
      [&] {
        return RunChildJob(self_exe, gpu::kNodeCheckJob, ChildArgs(o), timeout_s, cancel,
                           job ? job->child_env : decltype(job->child_env){});
      },
      cancel, Env, fabric_retries);
  if (cancel.cancelled()) return 130;
  if (fabric_retries > 0)
    std::fprintf(stderr, ru ? "lab_check node-check: cuInit 802 (фабрика NVSwitch не готова), повторов: %d\n"
                            : "lab_check node-check: cuInit 802 (NVSwitch fabric not ready), retried %d times\n",
                 fabric_retries);
  RelaySimulatorMessages(outcome);

  NodeVerdict verdict;
  json payload = json::object();
  if (std::optional<CheckResult> problem = gpu::EnvelopeProblem("node.check", outcome)) {
    verdict = FromEnvelope(*problem, o.expect);
    if (!problem->error.empty()) payload["error"] = problem->error;
  } else {
    payload = outcome.result.value();
    AddSysfsFacts(payload, ports_before);
    verdict = JudgeNode(payload, o.expect);
  }
  verdict.timings["total_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const std::string node = o.node.empty() ? SlurmNodeName(Env) : o.node;
  json report = NodeReportJson(verdict, payload, o.expect, node);
  if (job) report["job_gpus"] = {{"ids", job->ids}, {"source", job->source}, {"count", job->count}};
  // The one line stays what a scheduler parses; a person at the terminal still learns that the
  // figures are a simulator profile's, not a card's (the JSON says "simulated" too).
  if (report.value("simulated", false))
    std::fprintf(stderr, ru ? "lab_check node-check: симулированная машина (LABCHECK_SIM_MACHINE: %s), не настоящие видеокарты\n"
                            : "lab_check node-check: a simulated machine (LABCHECK_SIM_MACHINE: %s), not real GPUs\n",
                 report.value("simulated_machine", std::string("?")).c_str());
  const bool drain_failed =
      o.drain && verdict.state == NodeState::Unhealthy && !DrainIfUnhealthy(verdict, node, o.scontrol, lang, report);
  const bool written = WriteFiles(o, node, report, verdict, payload, lang);
  // --json: one line, so that `srun -N 64 lab_check node-check --json > fleet.jsonl` gives one
  // object per node that `lab_check compare fleet.jsonl` reads.
  // Warnings on stderr: the one line on stdout stays what a scheduler parses.
  for (const Finding& w : verdict.warnings)
    std::fprintf(stderr, ru ? "lab_check node-check: предупреждение: %s\n" : "lab_check node-check: warning: %s\n",
                 FindingText(w, lang).c_str());
  std::printf("%s\n", o.json ? report.dump().c_str() : VerdictLine(verdict, lang).c_str());
  std::fflush(stdout);
  if (drain_failed) return kExitDrainFailed;
  return written ? ExitCode(verdict.state) : kExitNotWritten;
}

}  // namespace

bool InHealthCheckContext(const EnvLookup& env) {
  const std::optional<std::string> node = env("SLURMD_NODENAME"), job = env("SLURM_JOB_ID");
  return node && !node->empty() && !(job && !job->empty());
}

void AddNodeCheckSubcommand(CLI::App& app, const Lang* lang, Lang help_lang, const std::string& self_exe, int* exit_code) {
  auto o = std::make_shared<Options>();
  auto h = [help_lang](const char* ru, const char* en) { return T(ru, en).In(help_lang); };
  CLI::App* cmd = app.add_subcommand(
      "node-check", h("проверка узла для планировщика (Slurm HealthCheckProgram, пролог): за секунды, одна строка OK или "
                      "FAIL: …, код 0 здоров / 1 вывести из работы / 2 ошибка в аргументах / 3 не понять (нет драйвера) / "
                      "4 нездоров, а вывести не удалось (--drain)",
                      "a node gate for schedulers (Slurm HealthCheckProgram, a prolog): seconds, one line OK or FAIL: …, exit "
                      "0 healthy / 1 drain it / 2 bad usage / 3 cannot tell (no driver) / 4 unhealthy and --drain could not drain it"));
  cmd->add_option("--expect-gpus", o->expect.gpus, h("сколько GPU должно быть (по умолчанию: хотя бы одна; под задачей Slurm — сколько дано задаче)",
                                                  "how many GPUs there must be (default: at least one; under a Slurm job: the job's)"))
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--expect-model", o->expect.model, h("модель: слова из имени карты, например H100 (по умолчанию: все карты одной модели)",
                                                     "the model: words of the card's name, e.g. H100 (default: all cards the same model)"));
  cmd->add_option("--expect-memory-gib", o->expect.memory_gib, h("память каждой карты, GiB (по умолчанию: как у соседних)", "each card's memory, GiB (default: as its siblings')"))
      ->check(CLI::PositiveNumber);
  cmd->add_option("--expect-driver", o->expect.driver, h("версия драйвера: 580 или 580.95.05", "driver version: 580 or 580.95.05"));
  cmd->add_option("--expect-mig", o->mig, h("MIG: on или off", "MIG: on or off"))->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  cmd->add_flag_function("--persistence-optional", [o](std::int64_t) { o->expect.persistence_required = false; },
                h("не считать выключенный persistence находкой", "persistence mode off is not a finding"));
  cmd->add_option("--pcie-gen", o->expect.pcie_gen, h("поколение PCIe под нагрузкой (по умолчанию: максимум по NVML)", "PCIe generation under load (default: NVML's maximum)"))
      ->check(CLI::Range(1, 7));
  cmd->add_option("--pcie-width", o->expect.pcie_width, h("ширина PCIe под нагрузкой (по умолчанию: карты по каталогу)", "PCIe width under load (default: the card's, from the catalog)"))
      ->check(CLI::Range(1, 32));
  cmd->add_option("--expect-nvlinks", o->expect.nvlinks, h("активных NVLink на карту (по умолчанию: по каталогу)", "active NVLinks per card (default: from the catalog)"))
      ->check(CLI::Range(0, 18));
  cmd->add_option("--expect-power-limit", o->expect.power_limit_w,
                  h("лимит мощности, выставленный нарочно (nvidia-smi -pl), Вт: лимит не ниже него — не находка",
                    "a power limit set on purpose (nvidia-smi -pl), W: a limit at or above it is not a finding"))
      ->check(CLI::PositiveNumber);
  cmd->add_option("--perf-tolerance", o->expect.perf_tolerance, h("насколько ниже нижней границы каталога ещё нормально (доля)", "how far below the catalog band's low edge is still fine (fraction)"))
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  cmd->add_option("--max-spread", o->expect.max_spread, h("карта медленнее медианной на эту долю — находка", "a card this fraction slower than the median card is a finding"))
      ->check(CLI::Range(0.01, 0.99))
      ->capture_default_str();
  cmd->add_option("--ecc-corrected-warn", o->expect.ecc_corrected_warn,
                  h("исправимых ошибок ECC с загрузки драйвера больше этого — предупреждение (узел остаётся в работе)",
                    "more correctable ECC errors than this since the driver loaded is a warning (the node stays in service)"))
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--nvlink-errors-warn", o->expect.nvlink_errors_warn,
                  h("ошибок NVLink (повторы, восстановления, CRC) на линк с загрузки драйвера больше этого — предупреждение",
                    "more NVLink errors (replays, recoveries, CRC) on a link since the driver loaded than this is a warning"))
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--expect-ib", o->expect.ib_ports, h("портов InfiniBand/RoCE не меньше N; каждый должен быть ACTIVE/LinkUp на полной скорости, без сбросов за проверку (по умолчанию: порты не проверяются)",
                                                     "at least N InfiniBand/RoCE ports, each ACTIVE/LinkUp at its siblings' rate with no link drops during the check (default: ports not judged)"))
      ->check(CLI::Range(0, 64));
  cmd->add_flag("--json", o->json, h("всё подробно одной строкой JSON", "the full detail as one line of JSON"));
  cmd->add_flag("--drain", o->drain, h("при FAIL вывести узел из работы в Slurm (scontrol update … state=drain) и сказать, что выполнено",
                                       "on FAIL drain the node in Slurm (scontrol update … state=drain) and say what was run"));
  cmd->add_option("--node", o->node, h("имя узла в Slurm (по умолчанию SLURMD_NODENAME, иначе hostname -s)", "the node's name in Slurm (default SLURMD_NODENAME, else hostname -s)"));
  cmd->add_option("--scontrol", o->scontrol, h("путь к scontrol для --drain (по умолчанию: PATH, затем /usr/bin, /usr/local/bin, /opt/slurm/bin)",
                                                "the scontrol --drain runs (default: PATH, then /usr/bin, /usr/local/bin, /opt/slurm/bin)"))
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, h("записать JSON и в файл; {node} — имя узла (journal/nodes/{node}.json)", "also write the JSON to a file; {node} is the node's name (journal/nodes/{node}.json)"));
  cmd->add_option("--prometheus", o->prometheus, h("записать метрики для Prometheus (текстовый файл для textfile collector node_exporter, имя *.prom)",
                                                   "write metrics for Prometheus (a file for node_exporter's textfile collector, named *.prom)"))
      ->check(CLI::Validator(
          [h](std::string& path) -> std::string {
            const bool prom = path.size() > 5 && path.compare(path.size() - 5, 5, ".prom") == 0;
            return prom ? "" : h("textfile collector node_exporter читает только файлы *.prom: ",
                                 "node_exporter's textfile collector reads only files ending in .prom: ") + path;
          },
          "FILE.prom"));
  cmd->add_option("--kernel-log", o->kernel_log, h("журнал ядра из файла (текст dmesg или journalctl -k) вместо /dev/kmsg",
                                                   "read the kernel log from a file (dmesg's or journalctl -k's text) instead of /dev/kmsg"))
      ->check(CLI::ExistingFile);
  cmd->add_option("--xid-ignore", o->expect.xid_ignore, h("XID через запятую, которые не выводят узел из работы (13,31)", "comma-separated XIDs that never fail the node (13,31)"))
      ->delimiter(',');
  cmd->add_option("--xid-fail", o->expect.xid_fail, h("XID через запятую, которые выводят узел из работы до сброса GPU, что бы ни говорил каталог NVIDIA",
                                                      "comma-separated XIDs that fail the node until a GPU reset, whatever NVIDIA's catalog says"))
      ->delimiter(',');
  cmd->add_option("--site-packages", o->site_packages, h("папка site-packages с cuBLAS (nvidia/cublas/lib), если в системе его нет", "a site-packages folder holding cuBLAS (nvidia/cublas/lib) when the system has none"));
  cmd->add_option("--timeout", o->timeout_s, h("секунд на проверку; зависшая — FAIL (по умолчанию 60, в HealthCheckProgram Slurm 30: slurmd убивает его через 60 с)",
                                               "seconds for the check; a hung one is a FAIL (default 60; 30 as Slurm's HealthCheckProgram, which slurmd kills at 60 s)"))
      ->check(CLI::Range(5.0, 3600.0));
  cmd->callback([o, lang, self_exe, exit_code] { *exit_code = Run(*o, *lang, self_exe); });
}

}  // namespace labcheck::node_check

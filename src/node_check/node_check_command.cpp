#include "node_check/node_check_command.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpu/bench/numa_placement.h"  // SysRoot
#include "gpu/gpu_checks.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "node_check/fabric_retry.h"
#include "node_check/findings/findings.h"
#include "node_check/findings/judge_node.h"
#include "node_check/outputs/node_report.h"
#include "node_check/outputs/prometheus_metrics.h"
#include "node_check/scan/job_gpus.h"
#include "node_check/scan/network_ports.h"
#include "node_check/scan/network_roles.h"
#include "node_check/scan/pci_bus_scan.h"
#include "node_check/slurm/slurm_drain.h"
#include "node_check/slurm/slurm_policy.h"
#include "node_check/verdict/node_verdict.h"
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
  std::string state_dir = kDefaultStateDir;
  DrainCap drain_cap = kDefaultDrainCap;
  int resume_after = DrainPolicy().resume_after;
  std::string out;
  std::string prometheus;
  std::string kernel_log;
  std::vector<std::string> site_packages;
  std::optional<double> timeout_s;  // default: kHealthCheckTimeoutS in slurmd's health check, else kDefaultTimeoutS
  double memtest_s = 0;             // --memtest: seconds of the memory test on every card; 0: none
};

std::optional<std::string> Env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v ? std::optional<std::string>(v) : std::nullopt;
}

// --memtest: a private folder for the memory test's log, the child's arguments for it, and the
// log read into the payload after the child (findings/memtest_findings.cpp).
class MemtestLogFile {
 public:
  explicit MemtestLogFile(double seconds) : seconds_(seconds) {
    if (seconds_ <= 0) return;
    Result<std::string> dir = MakePrivateTempDir("lab_nodecheck_memtest");
    if (dir.ok()) dir_ = *dir;
  }
  ~MemtestLogFile() {
    if (!dir_.empty()) RemoveTree(dir_);
  }
  MemtestLogFile(const MemtestLogFile&) = delete;
  MemtestLogFile& operator=(const MemtestLogFile&) = delete;
  std::vector<std::string> ChildArgs() const {
    if (seconds_ <= 0 || dir_.empty()) return {};
    return {"--memtest-seconds", fmt::format("{}", seconds_), "--memtest-log", dir_ + "/memtest.jsonl"};
  }
  void AddTo(json& payload) const {
    if (seconds_ <= 0) return;
    json memtest = {{"seconds", seconds_}};
    const Result<std::string> text = dir_.empty() ? Result<std::string>(Status::Error("no temporary folder")) : ReadFile(dir_ + "/memtest.jsonl");
    memtest["log"] = text.ok() ? *text : "";
    if (!text.ok()) memtest["error"] = text.status().message();
    if (payload.contains("memtest_error")) memtest["error"] = payload["memtest_error"];
    payload["memtest"] = memtest;
  }

 private:
  double seconds_;
  std::string dir_;
};

// The child's time: the gate's own, and the memory test's on top (its allocation and the cards'
// setup besides its GPU time). Under slurmd's health check the gate's 30 s holds for both: the
// rest of slurmd's 60 s is for a hung card's kill and --drain (node_check_command.h).
double ChildTimeout(const Options& o) {
  const bool health_check = InHealthCheckContext(Env);
  const double base = o.timeout_s.value_or(health_check ? kHealthCheckTimeoutS : kDefaultTimeoutS);
  if (o.memtest_s <= 0) return base;
  return health_check ? base : base + o.memtest_s + kMemtestSetupS;
}

// False after saying what is wrong with --memtest.
bool MemtestFits(const Options& o, bool ru) {
  if (o.memtest_s < 0 || o.memtest_s > kMemtestMostS) {
    std::fprintf(stderr, ru ? "lab_check node-check: --memtest %g: нужно число секунд от 1 до %g, например --memtest 20\n"
                            : "lab_check node-check: --memtest %g: give seconds from 1 to %g, e.g. --memtest 20\n",
                 o.memtest_s, kMemtestMostS);
    return false;
  }
  if (o.memtest_s > kMemtestInHealthCheckS && InHealthCheckContext(Env)) {
    std::fprintf(stderr, ru ? "lab_check node-check: --memtest %g не уложится в 60 с HealthCheckProgram вместе с остальной проверкой: "
                              "не больше %g с (или запускайте в прологе)\n"
                            : "lab_check node-check: --memtest %g does not fit slurmd's 60 s health check with the rest of the "
                              "gate: at most %g s there (or run it in a prolog)\n",
                 o.memtest_s, kMemtestInHealthCheckS);
    return false;
  }
  return true;
}

// Whether this run is given the whole node: no *_VISIBLE_DEVICES or job's GPUs, not a container
// (pci_bus_scan.h).
bool WholeNode() {
  const std::optional<std::string> fs_root = Env("LABCHECK_FS_ROOT");
  return !PartialScope(Env) && !ContainerScope(fs_root.value_or(""), Env);
}

// What the child's envelope says when it is not "ok": the driver's state where it is a finding of
// its own (installed but not loaded, versions that differ: driver_state_findings.cpp); else no
// driver or no GPU is "cannot tell", unless GPUs were expected; a driver that is there but fails, a
// crash or a hang is a sick node. cuInit 802 is the fabric manager's (LC111, whose action starts
// it), not a driver to reboot.
NodeVerdict FromEnvelope(const CheckResult& problem, const NodeExpectations& expect, bool fabric_not_ready) {
  NodeVerdict v;
  const json driver_state = problem.data.is_object() ? problem.data.value("driver_state", json(nullptr)) : json(nullptr);
  if (AddDriverStateFindings(driver_state, WholeNode(), v.findings)) {
    v.state = NodeState::Unhealthy;
    Classify(v, expect.report_only);
    return v;
  }
  if (problem.outcome == Outcome::Skip && !(expect.gpus && *expect.gpus > 0)) {
    v.state = NodeState::CannotTell;
    v.cannot_tell = problem.reason;
    return v;
  }
  v.state = NodeState::Unhealthy;
  Text reason = problem.reason;
  if (problem.outcome == Outcome::Skip) reason = T(fmt::format("нет GPU (ожидалось {}): {}", *expect.gpus, problem.reason.ru),
                                                   fmt::format("no GPU (expected {}): {}", *expect.gpus, problem.reason.en));
  const char* item = problem.outcome == Outcome::Skip ? "gpu_none" : fabric_not_ready ? "fabric_manager" : "driver_failed";
  v.findings.push_back({-1, item, reason});
  Classify(v, expect.report_only);
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

// --drain: what Slurm is told after the verdict (slurm_policy.h): drain, resume, or why neither.
// Under slurmd's health check the Slurm calls get what the check left of slurmd's 60 s
// (slurm_policy.h); elsewhere (a prolog, by hand) the fixed budget.
DrainResult DrainIfUnhealthy(const NodeVerdict& verdict, const Options& o, const std::string& node, bool whole_node, double elapsed_s,
                             Lang lang, json& report) {
  if (!o.drain) return {};
  DrainSettings settings{node, o.scontrol, o.state_dir, whole_node, {o.drain_cap, o.resume_after}};
  if (InHealthCheckContext(Env)) settings.slurm_budget_s = HealthCheckSlurmBudgetS(elapsed_s);
  return ApplyDrainPolicy(verdict, settings, Env, lang, report);
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
    say("--prometheus", WritePrometheusFile(o.prometheus, PrometheusText(verdict, payload, now_s, report.value("drain", json(nullptr)))));
  }
  return written;
}

// What sysfs says beside the driver: the cards on the PCI bus and the network ports (issue 45), each
// port and each network card the RDMA stack lacks with its role beside the GPUs (issue 53).
void AddSysfsFacts(json& payload, const json& ports_before, const std::vector<std::string>& ib_devices) {
  const bool simulated = payload.value("inventory", json::object()).value("simulated", false);
  payload["pci_bus"] = PciBusFacts(Env, simulated);
  if (std::optional<std::string> root = GateSysRoot(Env, simulated)) {
    const json gpus = ReadGpuLocations(*root);
    const json ports = WithCounterGrowth(ports_before, ReadNetworkPorts(*root)), lost = ReadNetworkCardsWithoutRdma(*root);
    json hcas = ports;
    hcas.insert(hcas.end(), lost.begin(), lost.end());
    payload["network_ports"] = WithNetworkRoles(ports, gpus, ib_devices, hcas);
    payload["network_cards_without_rdma"] = WithNetworkRoles(lost, gpus, ib_devices, hcas);
  } else {
    payload["network_ports"] = {{"na", "a simulated machine: the real /sys is not its network (set LABCHECK_SYS_ROOT)"}};
  }
}

// On stderr, so that the one line on stdout stays what a scheduler parses: what to do for each
// failing finding, then what was found and does not fail the node (monitor, held back).
void SayFindings(const NodeVerdict& verdict, Lang lang) {
  const bool ru = lang == Lang::Ru;
  for (const Finding& f : verdict.findings) {
    const std::string text = CodedFindingText(f, lang, verdict.gpus);
    const std::string action = f.action.In(lang);
    if (Fails(f))
      std::fprintf(stderr, "lab_check node-check: %s [%s]: %s\n", text.c_str(), reference::SeverityKey(f.severity), action.c_str());
    else if (f.held)
      std::fprintf(stderr, ru ? "lab_check node-check: придержано (--report-only), узел не выводится: %s [%s]\n"
                              : "lab_check node-check: held back (--report-only), the node is not failed for it: %s [%s]\n",
                   text.c_str(), reference::SeverityKey(f.severity));
    else
      std::fprintf(stderr, ru ? "lab_check node-check: предупреждение: %s\n" : "lab_check node-check: warning: %s\n", text.c_str());
  }
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
  if (!MemtestFits(o, ru)) return kExitUsage;
  o.expect.mig = o.mig == "on";
  // Under a job, its GPUs are what is judged and expected (job_gpus.h): a shared node's other
  // GPUs and their jobs' processes are none of this job's business.
  const std::optional<JobGpus> job = JobGpusFromEnv(Env);
  if (job) o.expect.gpus = job->count;
  RegisterGpuChildJobs();
  // The ports' counters before the check's load: growth across it is a link flapping now.
  const json ports_before = ReadNetworkPorts(gpu::SysRoot());
  const CancelToken cancel = InstallInterruptHandlers();
  const MemtestLogFile memtest(o.memtest_s);
  std::vector<std::string> child_args = ChildArgs(o);
  for (std::string& a : memtest.ChildArgs()) child_args.push_back(std::move(a));
  int fabric_retries = 0;
  ChildJobOutcome outcome = RunWhileFabricStarts(
      [&] {
        return RunChildJob(self_exe, gpu::kNodeCheckJob, child_args, ChildTimeout(o), cancel,
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
    verdict = FromEnvelope(*problem, o.expect, FabricNotReady(outcome));
    if (!problem->error.empty()) payload["error"] = problem->error;
    if (problem->data.is_object() && problem->data.contains("driver_state")) payload["driver_state"] = problem->data["driver_state"];
  } else {
    payload = outcome.result.value();
    AddSysfsFacts(payload, ports_before, o.expect.ib_devices);
    memtest.AddTo(payload);
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
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const DrainResult drained = DrainIfUnhealthy(verdict, o, node, !job, elapsed_s, lang, report);
  const bool written = WriteFiles(o, node, report, verdict, payload, lang) && drained.state_written;
  // --json: one line, so that `srun -N 64 lab_check node-check --json > fleet.jsonl` gives one
  // object per node that `lab_check compare fleet.jsonl` reads.
  SayFindings(verdict, lang);
  std::printf("%s\n", o.json ? report.dump().c_str() : VerdictLine(verdict, lang).c_str());
  std::fflush(stdout);
  if (drained.failed) return kExitDrainFailed;
  return written ? ExitCode(verdict.state) : kExitNotWritten;
}

// The counts that make a monitor finding (reported, never failing): corrected ECC and SRAM errors,
// NVLink error totals since the driver loaded.
void AddMonitorThresholds(CLI::App* cmd, const std::shared_ptr<Options>& o,
                          const std::function<std::string(const char*, const char*)>& h) {
  cmd->add_option("--ecc-corrected-warn", o->expect.ecc_corrected_warn,
                  h("исправимых ошибок ECC с загрузки драйвера больше этого — находка уровня monitor (узел остаётся в работе)",
                    "more correctable ECC errors than this since the driver loaded is a monitor finding (the node stays in service)"))
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--sram-corrected-warn", o->expect.sram_corrected_warn,
                  h("исправимых ошибок ECC в SRAM с загрузки драйвера больше этого — находка уровня monitor (по умолчанию порог Azure, 10000)",
                    "more correctable SRAM ECC errors than this since the driver loaded is a monitor finding (default: Azure's threshold, 10000)"))
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--nvlink-errors-warn", o->expect.nvlink_errors_warn,
                  h("ошибок NVLink (повторы, восстановления, CRC) на линк с загрузки драйвера больше этого — находка уровня monitor",
                    "more NVLink errors (replays, recoveries, CRC) on a link since the driver loaded than this is a monitor finding"))
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

// The network ports (issue 53): how many of each link layer, and which are the compute rails where
// the PCI bus cannot tell (scan/network_roles.h). Any of them has every port judged by its role.
void AddNetworkPortFlags(CLI::App* cmd, const std::shared_ptr<Options>& o, const std::function<std::string(const char*, const char*)>& h) {
  cmd->add_option("--expect-ib", o->expect.ib_ports,
                  h("портов InfiniBand не меньше N (RoCE считает --expect-roce); каждый порт проверяется по своей роли: вычислительная сеть "
                    "строго (ACTIVE/LinkUp, скорость как у соседних, без сбросов за проверку), карты хранилища и управления — по таким же "
                    "картам (по умолчанию: порты не проверяются)",
                    "at least N InfiniBand ports (RoCE ports: --expect-roce); each port is judged by its role: compute rails strictly "
                    "(ACTIVE/LinkUp, at their siblings' rate, no link drops during the check), storage and in-band cards against their "
                    "peers (default: ports not judged)"))
      ->check(CLI::Range(0, 64));
  cmd->add_option("--expect-roce", o->expect.roce_ports, h("портов RoCE (link layer Ethernet) не меньше N; порты проверяются, как с --expect-ib",
                                                          "at least N RoCE ports (link layer Ethernet); the ports are judged as with --expect-ib"))
      ->check(CLI::Range(0, 64));
  cmd->add_option("--ib-devices", o->expect.ib_devices,
                  h("вычислительная сеть по именам устройств RDMA через запятую (mlx5_0,mlx5_3,…), где шина PCI этого не скажет (GH200); "
                    "остальные порты — хранилище и управление; названного устройства нет — находка",
                    "the compute rails by RDMA device name, comma-separated (mlx5_0,mlx5_3,…), where the PCI bus cannot tell (GH200); every "
                    "other port is judged as storage/in-band; a named device that is not there is a finding"))
      ->delimiter(',');
}

// What the site says of the rules themselves: XIDs it ignores or fails on, and codes it only
// reports while it tries them (--report-only).
void AddRuleFlags(CLI::App* cmd, const std::shared_ptr<Options>& o, const std::function<std::string(const char*, const char*)>& h) {
  cmd->add_option("--xid-ignore", o->expect.xid_ignore, h("XID через запятую, которые не выводят узел из работы (13,31)", "comma-separated XIDs that never fail the node (13,31)"))
      ->delimiter(',');
  cmd->add_option("--xid-fail", o->expect.xid_fail, h("XID через запятую, которые выводят узел из работы до сброса GPU, что бы ни говорил каталог NVIDIA",
                                                      "comma-separated XIDs that fail the node until a GPU reset, whatever NVIDIA's catalog says"))
      ->delimiter(',');
  cmd->add_option("--report-only", o->expect.report_only,
                  h("коды находок через запятую (LC402,LC601) или all: о них сообщается с их серьёзностью, но узел из-за них не "
                    "выводится (так новое правило пробуют на парке)",
                    "comma-separated finding codes (LC402,LC601) or all: they are reported with their severity and never fail or "
                    "drain the node (how a new rule is tried on a fleet first)"))
      ->delimiter(',')
      ->check(CLI::Validator(
          [h](std::string& code) -> std::string {
            if (code == "all" || reference::FindingCodeByCode(code) != nullptr) return "";
            return h("нет такого кода находки: ", "no such finding code: ") + code +
                   h(" (коды — в docs/cluster-gate.md и в --json: findings[].code)", " (the codes: docs/cluster-gate.md, and --json's findings[].code)");
          },
          "CODE"));
}

// --drain and its policy (slurm_policy.h): what it does with Slurm, where it remembers, its limits.
void AddDrainOptions(CLI::App* cmd, const std::shared_ptr<Options>& o, Lang help_lang) {
  auto h = [help_lang](const char* ru, const char* en) { return T(ru, en).In(help_lang); };
  cmd->add_flag("--drain", o->drain, h("при FAIL вывести узел из работы в Slurm (scontrol update … state=drain) и сказать, что выполнено; "
                                       "здоровый узел, выведенный lab_check, вернуть (state=resume); чужую причину не трогать",
                                       "on FAIL drain the node in Slurm (scontrol update … state=drain) and say what was run; resume a healthy "
                                       "node lab_check drained (state=resume); never touch a reason someone else set"));
  cmd->add_option("--state-dir", o->state_dir, h("папка, где --drain помнит по узлу (файл JSON на узел), сколько раз подряд он был здоров и в какой загрузке выведен",
                                                "the folder where --drain remembers per node (a JSON file each) its healthy runs in a row and the boot it was drained in"))
      ->capture_default_str();
  cmd->add_option("--resume-after", o->resume_after, h("--drain возвращает узел, который выводил сам, после стольких здоровых проверок подряд (как NHC: 1)",
                                                      "--drain resumes a node it drained itself after this many healthy runs in a row (as NHC: 1)"))
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option_function<std::string>(
         "--drain-cap", [o](const std::string& v) { o->drain_cap = *ParseDrainCap(v); },
         h("--drain не выводит узел, если в его разделе уже выведено lab_check столько узлов: N или P% раздела (по умолчанию 10%, не меньше 1)",
           "--drain does not drain a node when lab_check has drained this many of its partition: N nodes or P% of them (default 10%, at least 1)"))
      ->check(CLI::Validator(
          [h](std::string& v) -> std::string {
            return ParseDrainCap(v) ? "" : h("нужно число узлов (3) или процент раздела (20%), больше 0 и не больше 100%: ",
                                             "expected a number of nodes (3) or a percentage of the partition (20%), above 0 and at most 100%: ") + v;
          },
          "N|P%"));
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
                      "4 --drain не смог вывести (или вернуть) узел, или его удержал предел --drain-cap",
                      "a node gate for schedulers (Slurm HealthCheckProgram, a prolog): seconds, one line OK or FAIL: …, exit "
                      "0 healthy / 1 drain it / 2 bad usage / 3 cannot tell (no driver) / 4 --drain could not drain (or resume) it, or the drain cap held it"));
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
  AddMonitorThresholds(cmd, o, h);
  AddNetworkPortFlags(cmd, o, h);
  cmd->add_flag("--json", o->json, h("всё подробно одной строкой JSON", "the full detail as one line of JSON"));
  AddDrainOptions(cmd, o, help_lang);
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
  AddRuleFlags(cmd, o, h);
  cmd->add_option("--site-packages", o->site_packages, h("папка site-packages с cuBLAS (nvidia/cublas/lib), если в системе его нет", "a site-packages folder holding cuBLAS (nvidia/cublas/lib) when the system has none"));
  cmd->add_option("--memtest", o->memtest_s,
                  h("ещё и тест памяти на каждой карте, столько секунд работы GPU (по умолчанию выключен; под задачей — только её "
                    "GPU; в HealthCheckProgram не больше 10)",
                    "also the memory test on every card for this many seconds of GPU time (off by default; under a job only "
                    "its GPUs; at most 10 in slurmd's HealthCheckProgram)"));
  cmd->add_option("--timeout", o->timeout_s, h("секунд на проверку; зависшая — FAIL (по умолчанию 60, в HealthCheckProgram Slurm 30: slurmd убивает его через 60 с)",
                                               "seconds for the check; a hung one is a FAIL (default 60; 30 as Slurm's HealthCheckProgram, which slurmd kills at 60 s)"))
      ->check(CLI::Range(5.0, 3600.0));
  cmd->callback([o, lang, self_exe, exit_code] { *exit_code = Run(*o, *lang, self_exe); });
}

}  // namespace labcheck::node_check

// A real Slurm (Debian's slurm-wlm and munge): the test writes a configuration under a temp folder,
// starts its own munged (own key and socket), slurmctld and slurmd on 127.0.0.1, and stops them at
// the end, failed or not; each daemon also runs under `timeout`, so none outlives a crashed test
// binary by long. slurm.conf defines ten nodes in one partition "gpu": labnode1 is this machine's
// slurmd, labnode2..labnode10 never register (scontrol can still drain them with a reason, which is
// all the drain cap counts). Then, over the simulated NVIDIA libraries:
//   - `srun -n 2 lab_check allreduce`: the merged report names Slurm and the node Slurm gave;
//   - `srun lab_check node-check --drain` on a node with health faults drains it with the reason
//     line, which `sinfo -R` shows; on a healthy profile the node stays idle;
//   - users' XIDs in the kernel log (--kernel-log) leave a resumed node idle; XID 48 drains it
//     until the log shows the driver loaded again;
//   - slurmd's own HealthCheckProgram (slurm.conf), started with slurmd's empty environment, runs
//     node-check --drain on a sick simulated machine and the node is drained;
//   - a Prolog on a node with four GPUs in gres.conf judges only the one GPU a job was given;
//   - issue 44: a node lab_check drained is resumed by a healthy run (after --resume-after runs,
//     and from another boot id when its findings clear only with a reboot); an administrator's
//     drain is never touched; with 2 of 10 nodes drained by lab_check and --drain-cap 20%, a third
//     sick node is not drained (exit 4).
// Skipped, with the reason, without the binaries or without root (both daemons run as root here).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "cluster_run_support.h"
#include "daemon_support.h"
#include "node_check/slurm_drain.h"
#include "node_check/slurm_nodes.h"
#include "node_check_run.h"
#include "platform/files.h"

namespace labcheck::node_check {
namespace {

using nlohmann::json;
using testing::Spawn;
using testing::Stop;
using testing::Which;

// The Slurm node's name: not this host's name, so that the report shows it as Slurm gave it
// (reports anonymise this host's own name). slurmd -N takes it; NodeHostname ties it to us.
constexpr const char* kNode = "labnode1";
constexpr int kNodes = 10;  // labnode1 registers; labnode2..labnode10 exist only in slurm.conf
constexpr double kDaemonLifetimeS = 170;  // the `timeout` around each daemon: the test's ceiling
constexpr int kHealthCheckIntervalS = 5;  // slurmctld asks slurmd to run HealthCheckProgram this often
constexpr int kGpus = 4;  // labnode1's GPUs in gres.conf, as many as the simulated machines have

std::string ShortHostName() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string name = host;
  return name.substr(0, name.find('.'));
}

class SlurmCluster : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    for (const char* p : {"munged", "slurmctld", "slurmd", "srun", "scontrol", "sinfo", "timeout"})
      if (Which(p).empty()) {
        skip_ = std::string("no ") + p + ": install slurm-wlm and munge (scripts/install-deps.sh --with-tests)";
        return;
      }
    if (geteuid() != 0) {
      skip_ = "needs root: the test runs its own slurmctld and slurmd as root (SlurmUser=root, SlurmdUser=root)";
      return;
    }
    if (!testing::SimPresent()) {
      skip_ = "no simulated NVIDIA libraries in " + testing::SimDir();
      return;
    }
    dir_ = *MakePrivateTempDir("lab_check_slurm");
    chmod(dir_.c_str(), 0755);  // munged wants the socket's folder reachable by all
    for (const char* sub : {"munge", "state", "spool", "log"}) std::filesystem::create_directories(dir_ + "/" + sub);
    chmod((dir_ + "/munge").c_str(), 0755);
    {
      std::ofstream key(dir_ + "/munge/munge.key", std::ios::binary);
      std::ifstream random("/dev/urandom", std::ios::binary);
      char bytes[1024];
      random.read(bytes, sizeof bytes);
      key.write(bytes, sizeof bytes);
    }
    chmod((dir_ + "/munge/munge.key").c_str(), 0400);
    const std::string socket = dir_ + "/munge/munge.socket";
    const std::string timeout = Which("timeout"), lifetime = std::to_string(static_cast<int>(kDaemonLifetimeS));
    munged_ = Spawn({timeout, lifetime, Which("munged"), "-F", "-f", "--key-file=" + dir_ + "/munge/munge.key",
                     "--socket=" + socket, "--pid-file=" + dir_ + "/munge/munged.pid", "--log-file=" + dir_ + "/log/munged.log",
                     "--seed-file=" + dir_ + "/munge/munged.seed"},
                    dir_ + "/log/munged.out", {});
    for (int i = 0; i < 50 && !std::filesystem::exists(socket); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int port = cluster::testing::FreePortPair();
    const std::string host = ShortHostName();
    WriteHealthCheckProgram();
    WritePrologAndGres();
    conf_ = dir_ + "/slurm.conf";
    std::ofstream conf(conf_);
    conf << "ClusterName=labcheck\n"
         << "SlurmctldHost=" << host << "(127.0.0.1)\n"
         << "SlurmctldPort=" << port << "\nSlurmdPort=" << port + 1 << "\n"
         << "SlurmUser=root\nSlurmdUser=root\n"
         << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << socket << "\n"
         << "StateSaveLocation=" << dir_ << "/state\nSlurmdSpoolDir=" << dir_ << "/spool\n"
         << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\nSlurmdPidFile=" << dir_ << "/slurmd.pid\n"
         << "SlurmctldLogFile=" << dir_ << "/log/slurmctld.log\nSlurmdLogFile=" << dir_ << "/log/slurmd.log\n"
         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n"
         << "SelectTypeParameters=CR_CPU\nMpiDefault=none\nJobAcctGatherType=jobacct_gather/none\n"
         << "AccountingStorageType=accounting_storage/none\nMailProg=/bin/true\nReturnToService=2\n"
         << "SchedulerType=sched/builtin\nInactiveLimit=0\nKillWait=5\nMinJobAge=5\n"
         << "HealthCheckProgram=" << dir_ << "/health-check\nHealthCheckInterval=" << kHealthCheckIntervalS
         << "\nHealthCheckNodeState=ANY\n"
         << "Prolog=" << dir_ << "/prolog\nGresTypes=gpu\n"
         << "NodeName=" << kNode << " NodeHostname=" << host << " NodeAddr=127.0.0.1 CPUs="
         << std::max(1u, std::thread::hardware_concurrency()) << " Gres=gpu:" << kGpus << " State=UNKNOWN\n"
         << "NodeName=labnode[2-" << kNodes << "] NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\n"
         << "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n";
    conf.close();
    const std::vector<std::string> env = {"SLURM_CONF=" + conf_};
    slurmctld_ = Spawn({timeout, lifetime, Which("slurmctld"), "-D", "-i", "-f", conf_}, dir_ + "/log/slurmctld.out", env);
    slurmd_ = Spawn({timeout, lifetime, Which("slurmd"), "-D", "-f", conf_, "-N", kNode}, dir_ + "/log/slurmd.out", env);
    setenv("SLURM_CONF", conf_.c_str(), 1);
    for (int i = 0; i < 100 && State() != "idle"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (State() != "idle") setup_error_ = "the node never became idle; sinfo says \"" + State() + "\"; logs in " + dir_ + "/log";
  }

  // The HealthCheckProgram: does nothing until a test names a simulated machine in
  // health-profile, then runs node-check --drain on it and moves its output into place whole. It sets no PATH (dash would give itself a
  // default one, so it is unset): lab_check must find scontrol as it would under slurmd. SLURM_CONF
  // only because this cluster's configuration is not in /etc/slurm.
  static void WriteHealthCheckProgram() {
    const std::string script = dir_ + "/health-check";
    std::ofstream(script) << "#!/bin/sh\nunset PATH\n[ -f " << dir_ << "/health-profile ] || exit 0\n"
                          << "read profile < " << dir_ << "/health-profile\n"
                          << "export SLURM_CONF=" << dir_ << "/slurm.conf LD_LIBRARY_PATH=" << testing::SimDir()
                          << " LABCHECK_SIM_MACHINE=$profile\n"
                          << LAB_CHECK_BINARY << " node-check --lang en --drain --state-dir " << dir_
                          << "/lab_check-state >" << dir_ << "/log/health.out.part 2>&1\n"
                          // A whole file or none: the next run (every 5 s) must not leave the test
                          // reading a half-written one.
                          << "status=$?\n/bin/mv " << dir_ << "/log/health.out.part " << dir_ << "/log/health.out\n"
                          << "exit $status\n";
    chmod(script.c_str(), 0755);
  }

  // labnode1 has kGpus GPUs in gres.conf (beside slurm.conf, where slurmd reads it), listed as
  // /dev/nvidiaN in order as AutoDetect=nvml writes them; they are links to /dev/null (slurmd
  // refuses a File= that is not a character or block device; the simulated machine is what
  // node-check measures). The Prolog runs the recipe of
  // docs/cluster-gate.md ("In a prolog", with --json for the test to read) once a test names a
  // simulated machine in prolog-profile, under slurmd's environment with no PATH.
  static void WritePrologAndGres() {
    std::filesystem::create_directories(dir_ + "/dev");
    for (int i = 0; i < kGpus; ++i) std::filesystem::create_symlink("/dev/null", dir_ + "/dev/nvidia" + std::to_string(i));
    std::ofstream(dir_ + "/gres.conf") << "NodeName=" << kNode << " Name=gpu File=" << dir_ << "/dev/nvidia[0-" << kGpus - 1
                                       << "]\n";
    const std::string script = dir_ + "/prolog";
    std::ofstream(script) << "#!/bin/sh\nunset PATH\n[ -f " << dir_ << "/prolog-profile ] || exit 0\n"
                          << "read profile < " << dir_ << "/prolog-profile\n"
                          << "export SLURM_CONF=" << dir_ << "/slurm.conf LD_LIBRARY_PATH=" << testing::SimDir()
                          << " LABCHECK_SIM_MACHINE=$profile\n"
                          << LAB_CHECK_BINARY << " node-check --lang en --expect-gpus " << kGpus << " --drain --json --state-dir "
                          << dir_ << "/lab_check-state >" << dir_ << "/log/prolog.json.part 2>" << dir_ << "/log/prolog.err\n"
                          << "status=$?\n/bin/mv " << dir_ << "/log/prolog.json.part " << dir_ << "/log/prolog.json\n"
                          << "exit $status\n";
    chmod(script.c_str(), 0755);
  }

  static void TearDownTestSuite() {
    Stop(slurmd_);
    Stop(slurmctld_);
    Stop(munged_);
    slurmd_ = slurmctld_ = munged_ = -1;
    unsetenv("SLURM_CONF");
    // The logs stay when a test failed: the failure message names the folder.
    if (!dir_.empty() && ::testing::UnitTest::GetInstance()->failed_test_count() == 0) RemoveTree(dir_);
  }

 protected:
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    Restore();
  }

  // Every test starts from ten nodes in service and no --drain state: an earlier test of the same
  // process (the binary run whole) may have failed halfway.
  static void Restore() {
    for (const SlurmNode& n : ParseScontrolNodes(Run({"scontrol", "-o", "show", "nodes"}, 10).out))
      if (n.Draining() && !Run({"scontrol", "update", "nodename=" + n.name, "state=resume"}, 10).exited_ok())
        Run({"scontrol", "update", "nodename=" + n.name, "state=undrain"}, 10);  // never registered: no RESUME from UNKNOWN
    std::filesystem::remove_all(StateDir());
    WaitFor("idle");
  }
  static std::string StateDir() { return dir_ + "/lab_check-state"; }
  static void WaitFor(const std::string& state, const std::string& node = kNode) {
    for (int i = 0; i < 50 && State(node) != state; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // "" when scontrol succeeded, else what it said.
  static std::string Scontrol(std::vector<std::string> args) {
    args.insert(args.begin(), "scontrol");
    ChildOutcome o = Run(args, 10);
    return o.exited_ok() ? "" : o.Describe() + ": " + o.err;
  }
  // node-check --drain as labnode1, run here rather than under srun: Slurm starts no job on a
  // drained node, while slurmd's health check runs there all the same (HealthCheckNodeState=ANY).
  static testing::Run Check(const std::string& profile, std::vector<std::string> args = {},
                            std::vector<std::pair<std::string, std::string>> env = {}) {
    std::vector<std::string> all = {"--drain", "--node", kNode, "--state-dir", StateDir()};
    all.insert(all.end(), args.begin(), args.end());
    env.push_back({"SLURM_CONF", conf_});
    return testing::NodeCheck(profile, all, env);
  }

  static ChildOutcome Run(std::vector<std::string> argv, double timeout_s = 90) {
    ChildSpec spec;
    spec.argv = std::move(argv);
    spec.timeout_s = timeout_s;
    spec.set_env = {{"SLURM_CONF", conf_}};
    return RunChild(spec, CancelToken::Never());
  }
  // The node's state as sinfo prints it ("idle", "drained", "draining", "mixed"…).
  static std::string State(const std::string& node = kNode) {
    ChildOutcome o = Run({"sinfo", "-h", "-n", node, "-o", "%T"}, 10);
    std::string s = o.out.substr(0, o.out.find('\n'));
    return s;
  }
  static std::string Reason(const std::string& node = kNode) {
    ChildOutcome o = Run({"sinfo", "-R", "-h", "-n", node, "-o", "%300E"}, 10);
    std::string s = o.out.substr(0, o.out.find('\n'));
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }
  // srun one task on our node with the simulated machine `profile`.
  static std::vector<std::string> Srun(int tasks, const std::string& profile) {
    // --overcommit: two tasks even where the machine has one CPU (slurmd drains a node whose
    // configured CPUs exceed the hardware's, so the configuration says what is there).
    return {"srun", "--overcommit", "-N", "1", "-n", std::to_string(tasks), "-w", kNode,
            "--export=ALL,LD_LIBRARY_PATH=" + testing::SimDir() + ",LABCHECK_SIM_MACHINE=" + testing::Profile(profile)};
  }

  static inline std::string skip_, setup_error_, dir_, conf_;
  static inline pid_t munged_ = -1, slurmctld_ = -1, slurmd_ = -1;
};

TEST_F(SlurmCluster, AllReduceUnderSrunNamesSlurmAndItsNode) {
  std::vector<std::string> argv = Srun(2, "cluster-node.json");
  for (const std::string& a : {std::string(LAB_CHECK_BINARY), std::string("allreduce"), std::string("--json"), std::string("--lang"),
                               std::string("en"), std::string("--max-mib"), std::string("2"), std::string("--stall-s"),
                               std::string("3"), std::string("--timeout"), std::string("30"), std::string("--port"),
                               std::to_string(cluster::testing::FreePortPair()), std::string("--out"), dir_ + "/cluster.md"})
    argv.push_back(a);
  ChildOutcome run = Run(argv);
  ASSERT_TRUE(run.exited_ok()) << run.Describe() << "\n" << run.out << run.err;
  const json report = cluster::testing::ReportJson(run.out);
  const json* check = cluster::testing::ClusterCheck(report);
  ASSERT_NE(check, nullptr) << run.out;
  // PASS or WARN (one node has no network to judge); never a dead, hung or missing rank.
  EXPECT_NE(check->value("status", ""), "FAIL") << check->dump().substr(0, 3000);
  const json& data = (*check)["data"];
  EXPECT_EQ(data["launcher"], "Slurm");
  EXPECT_EQ(data["world_size"], 2);
  ASSERT_TRUE(data.contains("slurm")) << data.dump().substr(0, 2000);
  EXPECT_EQ(data["slurm"]["node_list"], kNode);
  EXPECT_EQ(data["slurm"]["nodes"], 1);
  EXPECT_TRUE(data["slurm"]["job_id"].is_number());
  EXPECT_EQ(data["nodes_count"], 1) << "two tasks on one node are one node";
}

TEST_F(SlurmCluster, NodeCheckDrainsASickNodeAndLeavesAHealthyOneIdle) {
  std::vector<std::string> healthy = Srun(1, "course-4x4080.json");
  for (const char* a : {LAB_CHECK_BINARY, "node-check", "--drain", "--lang", "en"}) healthy.push_back(a);
  ChildOutcome ok = Run(healthy);
  EXPECT_TRUE(ok.exited_ok()) << ok.Describe() << "\n" << ok.out << ok.err;
  EXPECT_EQ(ok.out, "OK\n");
  for (int i = 0; i < 50 && State() != "idle"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(State(), "idle");
  EXPECT_EQ(Reason(), "");

  std::vector<std::string> sick = Srun(1, "health-faults.json");
  for (const char* a : {LAB_CHECK_BINARY, "node-check", "--drain", "--lang", "en"}) sick.push_back(a);
  ChildOutcome fail = Run(sick);
  EXPECT_EQ(fail.exit_code, 1) << fail.Describe() << "\n" << fail.out << fail.err;
  EXPECT_EQ(fail.out.rfind("FAIL: LC203 GPU0 ", 0), 0u) << fail.out;
  // It says what it ran, with the node name slurmd gave the step (SLURMD_NODENAME).
  EXPECT_NE(fail.err.find(std::string("scontrol update nodename=") + kNode + " state=drain reason=\"lab_check: LC203 GPU0"),
            std::string::npos)
      << fail.err;
  for (int i = 0; i < 50 && State() != "drained"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(State(), "drained");
  const std::string findings = fail.out.substr(6, fail.out.find('\n') - 6);  // after "FAIL: "
  EXPECT_EQ(Reason(), DrainReason(findings));
  EXPECT_EQ(Reason().rfind("lab_check: LC203 GPU0 (0000:01:00.0) 2 uncorrected ECC errors since boot", 0), 0u) << Reason();

  // How an administrator returns it (docs/cluster-gate.md).
  ChildOutcome resume = Run({"scontrol", "update", std::string("nodename=") + kNode, "state=resume"});
  EXPECT_TRUE(resume.exited_ok()) << resume.err;
  for (int i = 0; i < 50 && State() != "idle"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(State(), "idle");
}

// Issue 39: users' XIDs stay in the kernel log until reboot. A node an administrator resumed after
// an application-class XID (31, 13: RESTART_APP in NVIDIA's catalog) stays idle at the next health
// check; a reset-class one (48) drains it with the action, until the log shows the driver loaded again.
TEST_F(SlurmCluster, ApplicationXidsNoLongerDrainAResumedNode) {
  const std::string log = dir_ + "/kern.log";
  const std::string boot = "[    0.000000] Linux version 6.1.0-28-amd64\n[   12.3] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05\n";
  std::ofstream(log) << boot << "[ 8123.0] NVRM: Xid (PCI:0000:41:00): 31, pid=4242, name=python3, MMU Fault\n"
                     << "[ 9001.5] NVRM: Xid (PCI:0000:81:00): 13, pid=4343, name=python3, Graphics Exception\n";
  auto health_check = [&] {
    std::vector<std::string> argv = Srun(1, "course-4x4080.json");
    for (const std::string& a : {std::string(LAB_CHECK_BINARY), std::string("node-check"), std::string("--drain"),
                                 std::string("--lang"), std::string("en"), std::string("--kernel-log"), log})
      argv.push_back(a);
    return Run(argv);
  };
  // The administrator had drained it over the XID 31 and resumes it.
  EXPECT_TRUE(Run({"scontrol", "update", std::string("nodename=") + kNode, "state=drain", "reason=xid 31"}).exited_ok());
  EXPECT_TRUE(Run({"scontrol", "update", std::string("nodename=") + kNode, "state=resume"}).exited_ok());
  ChildOutcome ok = health_check();
  EXPECT_EQ(ok.exit_code, 0) << ok.Describe() << "\n" << ok.out << ok.err;
  EXPECT_EQ(ok.out, "OK\n");
  for (int i = 0; i < 50 && State() != "idle"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(State(), "idle");

  std::ofstream(log, std::ios::app) << "[ 9500.0] NVRM: Xid (PCI:0000:41:00): 48, pid='<unknown>', name=<unknown>, DBE\n";
  ChildOutcome fail = health_check();
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  for (int i = 0; i < 50 && State() != "drained"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(State(), "drained");
  EXPECT_EQ(Reason(), "lab_check: LC301 GPU1 (0000:41:00.0) XID 48 (Double Bit ECC Error): reset the GPU");

  // Reset, by reloading the driver; resumed; the next check leaves it idle.
  std::ofstream(log, std::ios::app) << "[ 9600.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05\n";
  EXPECT_TRUE(Run({"scontrol", "update", std::string("nodename=") + kNode, "state=resume"}).exited_ok());
  ChildOutcome again = health_check();
  EXPECT_EQ(again.out, "OK\n") << again.err;
  for (int i = 0; i < 50 && State() != "idle"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(State(), "idle");
}

// Issue 42: slurmd runs HealthCheckProgram with an environment built from nothing (no PATH); the
// drain must still find scontrol, and the node must end up drained with the findings as reason.
TEST_F(SlurmCluster, HealthCheckProgramUnderSlurmdDrainsASickNode) {
  ASSERT_EQ(State(), "idle");
  std::ofstream(dir_ + "/health-profile") << testing::Profile("health-faults.json") << "\n";
  for (int i = 0; i < 120 && State() != "drained"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::filesystem::remove(dir_ + "/health-profile");
  // node-check drains before it exits, and the program moves its output into place after: a
  // loaded machine can show the drain first.
  for (int i = 0; i < 100 && !std::filesystem::exists(dir_ + "/log/health.out"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Result<std::string> out = ReadFile(dir_ + "/log/health.out");
  const std::string said = out.ok() ? out.value() : "(no output: the health check program did not run node-check)";
  ASSERT_EQ(State(), "drained") << "node-check said: " << said << "\nlogs in " << dir_ << "/log";
  EXPECT_EQ(Reason().rfind("lab_check: LC203 GPU0 (0000:01:00.0) 2 uncorrected ECC errors since boot", 0), 0u) << Reason();
  // Found outside PATH, and run by its full path.
  EXPECT_NE(said.find(std::string("ran: /")), std::string::npos) << said;
  EXPECT_NE(said.find(std::string("scontrol update nodename=") + kNode + " state=drain"), std::string::npos) << said;
  EXPECT_TRUE(Run({"scontrol", "update", std::string("nodename=") + kNode, "state=resume"}).exited_ok());
}

// Issue 44: a node lab_check drained comes back by itself once a run finds it healthy (the
// simulated machine swapped for a healthy one), and says what it ran. The sick machine's findings
// (a lowered power limit, a slow card) clear without a reboot; health-faults.json's XID 79 would not.
TEST_F(SlurmCluster, ANodeLabCheckDrainedIsResumedByAHealthyRun) {
  testing::Run sick = Check("course-power-capped.json");
  EXPECT_EQ(sick.outcome.exit_code, 1) << sick.outcome.err;
  WaitFor("drained");
  ASSERT_EQ(State(), "drained") << sick.outcome.err;
  testing::Run healthy = Check("course-4x4080.json");
  EXPECT_EQ(healthy.outcome.exit_code, 0) << healthy.outcome.err;
  EXPECT_EQ(healthy.line, "OK");
  EXPECT_NE(healthy.outcome.err.find(std::string("ran: ") + Which("scontrol") + " update nodename=" + kNode + " state=resume"),
            std::string::npos)
      << healthy.outcome.err;
  WaitFor("idle");
  EXPECT_EQ(State(), "idle");
  EXPECT_EQ(Reason(), "");
}

// An administrator's reason is never lab_check's to clear or to overwrite, healthy run or not.
TEST_F(SlurmCluster, AnAdministratorsDrainIsLeftAsItIs) {
  const std::string reason = "fan replaced, ticket 4711";
  ASSERT_EQ("", Scontrol({"update", std::string("nodename=") + kNode, "state=drain", "reason=" + reason}));
  WaitFor("drained");
  testing::Run healthy = Check("course-4x4080.json");
  EXPECT_EQ(healthy.outcome.exit_code, 0) << healthy.outcome.err;
  EXPECT_NE(healthy.outcome.err.find("already drained by someone else: " + reason + "; left as it is"), std::string::npos)
      << healthy.outcome.err;
  EXPECT_EQ(healthy.outcome.err.find("state=resume"), std::string::npos) << healthy.outcome.err;
  EXPECT_EQ(State(), "drained");
  EXPECT_EQ(Reason(), reason);
  testing::Run sick = Check("health-faults.json");
  EXPECT_EQ(sick.outcome.exit_code, 1) << sick.outcome.err;  // out of service, as a FAIL should leave it
  EXPECT_NE(sick.outcome.err.find("already drained by someone else: " + reason), std::string::npos) << sick.outcome.err;
  EXPECT_EQ(sick.outcome.err.find("state=drain"), std::string::npos) << sick.outcome.err;
  EXPECT_EQ(State(), "drained");
  EXPECT_EQ(Reason(), reason);
}

// The issue's case: 2 of the partition's 10 nodes already drained by lab_check and --drain-cap 20%:
// a third sick node stays in service, the message says why, exit 4, and --out records the decision.
TEST_F(SlurmCluster, TheDrainCapHoldsAThirdDrainOfTen) {
  for (const char* other : {"labnode2", "labnode3"})
    ASSERT_EQ("", Scontrol({"update", std::string("nodename=") + other, "state=drain",
                          "reason=lab_check: LC203 GPU0 (0000:01:00.0) 2 uncorrected ECC errors since boot"}));
  const std::string out = dir_ + "/capped.json";
  testing::Run sick = Check("health-faults.json", {"--drain-cap", "20%", "--out", out});
  EXPECT_EQ(sick.outcome.exit_code, 4) << sick.outcome.err;
  EXPECT_EQ(sick.line.rfind("FAIL: LC203 GPU0 ", 0), 0u) << sick.line;  // the finding stays in the report
  EXPECT_NE(sick.outcome.err.find("drain cap reached: 2 of 10 nodes of gpu drained by lab_check (cap 20%)"), std::string::npos)
      << sick.outcome.err;
  EXPECT_EQ(sick.outcome.err.find("state=drain"), std::string::npos) << sick.outcome.err;
  EXPECT_EQ(State(), "idle");
  const Result<std::string> text = ReadFile(out);
  ASSERT_TRUE(text.ok());
  const json report = json::parse(text.value());
  EXPECT_EQ(report["drain"]["action"], "held_by_cap");
  EXPECT_EQ(report["drain"]["cap"]["drained_by_lab_check"], 2);
  EXPECT_EQ(report["drain"]["cap"]["nodes"], kNodes);
  EXPECT_EQ(report["verdict"], "FAIL");
  // A cap of 3 nodes has room for it.
  testing::Run again = Check("health-faults.json", {"--drain-cap", "3"});
  EXPECT_EQ(again.outcome.exit_code, 1) << again.outcome.err;
  WaitFor("drained");
  EXPECT_EQ(State(), "drained");
}

TEST_F(SlurmCluster, ResumeAfterTwoWaitsForTheSecondHealthyRun) {
  EXPECT_EQ(Check("course-power-capped.json").outcome.exit_code, 1);
  WaitFor("drained");
  testing::Run first = Check("course-4x4080.json", {"--resume-after", "2"});
  EXPECT_EQ(first.outcome.exit_code, 0) << first.outcome.err;
  EXPECT_NE(first.outcome.err.find("healthy 1 run(s) in a row of 2 (--resume-after): not resumed yet"), std::string::npos)
      << first.outcome.err;
  EXPECT_EQ(State(), "drained");
  testing::Run second = Check("course-4x4080.json", {"--resume-after", "2"});
  EXPECT_NE(second.outcome.err.find("state=resume"), std::string::npos) << second.outcome.err;
  WaitFor("idle");
  EXPECT_EQ(State(), "idle");
}

// XID 79 in the kernel log clears only with a reboot: the drain records this boot's id, and a
// healthy run (the log read afresh, as after a reboot) resumes it only once the id has changed.
TEST_F(SlurmCluster, ARebootClassDrainIsResumedOnlyFromAnotherBoot) {
  const std::string boot_id = dir_ + "/boot_id", log = dir_ + "/kern-79.log", clean = dir_ + "/kern-clean.log";
  const std::string boot = "[    0.000000] Linux version 6.1.0-28-amd64\n[   12.3] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05\n";
  std::ofstream(log) << boot << "[ 9500.0] NVRM: Xid (PCI:0000:41:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n";
  std::ofstream(clean) << boot;
  std::ofstream(boot_id) << "11111111-1111-1111-1111-111111111111\n";
  const std::vector<std::pair<std::string, std::string>> env = {{"LABCHECK_BOOT_ID_FILE", boot_id}};
  testing::Run sick = Check("course-4x4080.json", {"--kernel-log", log}, env);
  EXPECT_EQ(sick.outcome.exit_code, 1) << sick.outcome.err;
  WaitFor("drained");
  EXPECT_NE(Reason().find("XID 79 (GPU has fallen off the bus): reboot"), std::string::npos) << Reason();
  testing::Run same_boot = Check("course-4x4080.json", {"--kernel-log", clean}, env);
  EXPECT_EQ(same_boot.outcome.exit_code, 0) << same_boot.outcome.err;
  EXPECT_NE(same_boot.outcome.err.find("has not rebooted since (same boot id): not resumed"), std::string::npos)
      << same_boot.outcome.err;
  EXPECT_EQ(State(), "drained");
  std::ofstream(boot_id) << "22222222-2222-2222-2222-222222222222\n";
  testing::Run rebooted = Check("course-4x4080.json", {"--kernel-log", clean}, env);
  EXPECT_NE(rebooted.outcome.err.find("state=resume"), std::string::npos) << rebooted.outcome.err;
  WaitFor("idle");
  EXPECT_EQ(State(), "idle");
}

// Issue 42: a prolog on a shared node, under real Slurm. course-memory-held.json has another job's
// process holding memory on the card on bus 41 (Slurm's GPU 1). A job given one GPU gets GPU 0:
// its prolog, with --expect-gpus 4 as the recipe has it, judges that one card (the ids slurmd set),
// leaves the held card alone and the node in service, and the job runs.
TEST_F(SlurmCluster, APrologOnASharedNodeJudgesTheJobsGpusOnly) {
  ASSERT_EQ(State(), "idle");
  std::filesystem::remove(dir_ + "/log/prolog.json");
  std::ofstream(dir_ + "/prolog-profile") << testing::Profile("course-memory-held.json") << "\n";
  ChildOutcome job = Run({"srun", "-N", "1", "-n", "1", "-w", kNode, "--gres=gpu:1", "/bin/true"});
  std::filesystem::remove(dir_ + "/prolog-profile");
  const Result<std::string> said = ReadFile(dir_ + "/log/prolog.json");
  ASSERT_TRUE(said.ok()) << "the prolog did not run node-check; " << job.Describe() << "\n" << job.err << "\nlogs in " << dir_ << "/log";
  const json report = json::parse(said.value(), nullptr, false);
  ASSERT_TRUE(report.is_object() && report.contains("job_gpus")) << said.value().substr(0, 600);
  // slurmd 22.05 gives the prolog CUDA_VISIBLE_DEVICES as well as SLURM_JOB_GPUS: the same ids.
  EXPECT_EQ(report["job_gpus"]["ids"], "0") << report["job_gpus"];
  EXPECT_EQ(report["job_gpus"]["count"], 1) << report["job_gpus"];
  ASSERT_EQ(report["gpus"].size(), 1u) << report["gpus"];
  EXPECT_EQ(report["gpus"][0]["pci_bus_id"], "0000:01:00.0");
  EXPECT_EQ(report["line"], "OK");
  EXPECT_TRUE(job.exited_ok()) << job.Describe() << "\n" << job.err;
  WaitFor("idle");  // "mixed" while the finished job is cleaned up
  EXPECT_EQ(State(), "idle");

  // The whole node, as the health check sees it, has the held card.
  testing::Run whole = Check("course-memory-held.json", {"--expect-gpus", std::to_string(kGpus)});
  EXPECT_EQ(whole.outcome.exit_code, 1) << whole.outcome.err;
  EXPECT_EQ(whole.line.rfind("FAIL: LC503 GPU1 (0000:41:00.0) another process holds", 0), 0u) << whole.line;
}

}  // namespace
}  // namespace labcheck::node_check

// The real Slurm the slurm tests start (Debian's slurm-wlm and munge): the fixture writes a
// configuration under a temp folder, starts its own munged (own key and socket), slurmctld and slurmd on
// 127.0.0.1, and stops them at the end, failed or not; each daemon also runs under `timeout`, so none
// outlives a crashed test binary by long. slurm.conf defines ten nodes in one partition "gpu":
// labnode1 is this machine's slurmd, with four GPUs in gres.conf, a HealthCheckProgram and a Prolog;
// labnode2..labnode10 never register (scontrol can still drain them with a reason, which is all the
// drain cap counts). Skipped, with the reason, without the binaries or without root (both daemons
// run as root here). The tests: slurm_cluster_test.cpp (launching and draining under Slurm) and
// slurm_resume_test.cpp (issue 44: resuming, the administrator's drains, the drain cap).
#pragma once
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
#include "node_check/slurm/slurm_drain.h"
#include "node_check/slurm/slurm_nodes.h"
#include "node_check_run.h"
#include "platform/files.h"

namespace labcheck::node_check {

using nlohmann::json;
using testing::Spawn;
using testing::Stop;
using testing::Which;

// The Slurm node's name: not this host's name, so that the report shows it as Slurm gave it
// (reports anonymise this host's own name). slurmd -N takes it; NodeHostname ties it to us.
inline constexpr const char* kNode = "labnode1";
inline constexpr int kNodes = 10;  // labnode1 registers; labnode2..labnode10 exist only in slurm.conf
inline constexpr double kDaemonLifetimeS = 170;  // the `timeout` around each daemon: the test's ceiling
inline constexpr int kHealthCheckIntervalS = 5;  // slurmctld asks slurmd to run HealthCheckProgram this often
inline constexpr int kGpus = 4;  // labnode1's GPUs in gres.conf, as many as the simulated machines have

inline std::string ShortHostName() {
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
                          // Each run's output, whole, after the ones before: a run every 5 s must not
                          // replace the run that drained with one that found the node already drained
                          // (a loaded CI machine gets a second run in before the test reads).
                          << "status=$?\n/bin/cat " << dir_ << "/log/health.out.part >>" << dir_ << "/log/health.out\n"
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

}  // namespace labcheck::node_check

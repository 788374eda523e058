// Under a real Slurm (slurm_cluster.h), over the simulated NVIDIA libraries:
//   - `srun -n 2 lab_check allreduce`: the merged report names Slurm and the node Slurm gave;
//   - `srun lab_check node-check --drain` on a node with health faults drains it with the reason
//     line, which `sinfo -R` shows; on a healthy profile the node stays idle;
//   - users' XIDs in the kernel log (--kernel-log) leave a resumed node idle; XID 48 drains it
//     until the log shows the driver loaded again;
//   - slurmd's own HealthCheckProgram (slurm.conf), started with slurmd's empty environment, runs
//     node-check --drain on a sick simulated machine and the node is drained;
//   - a Prolog on a node with four GPUs in gres.conf judges only the one GPU a job was given.
#include "slurm_cluster.h"

namespace labcheck::node_check {
namespace {

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
  // GPU0 fell off the bus (XID 79 during the check): its worst finding leads, its ECC errors after it.
  EXPECT_EQ(fail.out.rfind("FAIL: LC110 GPU0 (0000:01:00.0) fell off the bus (XID 79 during the check): reboot; LC203 GPU0 ", 0), 0u)
      << fail.out;
  // It says what it ran, with the node name slurmd gave the step (SLURMD_NODENAME).
  EXPECT_NE(fail.err.find(std::string("scontrol update nodename=") + kNode + " state=drain reason=\"lab_check: LC110 GPU0"),
            std::string::npos)
      << fail.err;
  for (int i = 0; i < 50 && State() != "drained"; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(State(), "drained");
  const std::string findings = fail.out.substr(6, fail.out.find('\n') - 6);  // after "FAIL: "
  EXPECT_EQ(Reason(), DrainReason(findings));
  EXPECT_EQ(Reason().rfind("lab_check: LC110 GPU0 (0000:01:00.0) fell off the bus (XID 79 during the check): reboot; LC203 GPU0 (0000:01:00.0) 2 "
                           "uncorrected ECC errors since the driver loaded",
                           0),
            0u) << Reason();

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
  // node-check drains before it exits, and the program appends its output after: a loaded machine
  // can show the drain first, and the run that drained may not be the first one logged.
  std::string said = "(no output: the health check program did not run node-check)";
  for (int i = 0; i < 100; ++i) {
    const Result<std::string> out = ReadFile(dir_ + "/log/health.out");
    if (out.ok()) said = out.value();
    if (said.find("ran: /") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(State(), "drained") << "node-check said: " << said << "\nlogs in " << dir_ << "/log";
  EXPECT_EQ(Reason().rfind("lab_check: LC110 GPU0 (0000:01:00.0) fell off the bus (XID 79 during the check): reboot; LC203 GPU0 (0000:01:00.0) 2 "
                           "uncorrected ECC errors since the driver loaded",
                           0),
            0u) << Reason();
  // Found outside PATH, and run by its full path.
  EXPECT_NE(said.find(std::string("ran: /")), std::string::npos) << said;
  EXPECT_NE(said.find(std::string("scontrol update nodename=") + kNode + " state=drain"), std::string::npos) << said;
  EXPECT_TRUE(Run({"scontrol", "update", std::string("nodename=") + kNode, "state=resume"}).exited_ok());
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

// The real binary on the simulated machines: OK on a healthy one, FAIL naming card and reason on
// each health-fault and slow-link profile, exit codes 0/1/2/3, per-part timings in --json. Wall
// time is only reported, never asserted tightly (the CI machine is shared).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "node_check_run.h"

namespace labcheck::node_check {
namespace {

using testing::NodeCheck;

class NodeCheckSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SimPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
  }
};

// "GPU2 PCIe…" names "GPU2 (0000:41:00.0) PCIe…" in the line: the card by ordinal and bus id (the
// bus ids themselves are pinned on course-cvd-order.json below).
bool Names(const std::string& line, const std::string& what) {
  const size_t space = std::min(what.find(' '), what.size());
  const std::string card = what.substr(0, space), rest = what.substr(space);
  for (size_t at = line.find(card + " ("); at != std::string::npos; at = line.find(card + " (", at + 1)) {
    const size_t close = line.find(')', at);
    if (close != std::string::npos && line.compare(close + 1, rest.size(), rest) == 0) return true;
  }
  return false;
}

TEST_F(NodeCheckSim, CourseMachineIsOkWithinTheBudget) {
  testing::Run run = NodeCheck("course-4x4080.json", {"--json", "--expect-gpus", "4", "--expect-model", "RTX 4080"});
  ASSERT_EQ(run.outcome.exit_code, 0) << run.outcome.out << run.outcome.err;
  ASSERT_TRUE(run.json.is_object()) << run.outcome.out;
  EXPECT_EQ(run.json["verdict"], "OK");
  EXPECT_EQ(run.json["line"], "OK");
  EXPECT_TRUE(run.json["simulated"].get<bool>());
  ASSERT_EQ(run.json["gpus"].size(), 4u);
  for (const auto& g : run.json["gpus"]) {
    EXPECT_TRUE(g["matmul_tflops"].is_number()) << g.dump();
    EXPECT_TRUE(g["copy_gbps"].is_number()) << g.dump();
  }
  // Every part's time is reported; the total is generous under a loaded CI machine.
  const auto& t = run.json["timings_s"];
  for (const char* part : {"driver_s", "inventory_s", "health_s", "total_s"}) EXPECT_TRUE(t[part].is_number()) << part;
  EXPECT_EQ(t["matmul_per_gpu_s"].size(), 4u);
  EXPECT_EQ(t["copy_per_gpu_s"].size(), 4u);
  EXPECT_LT(t["total_s"].get<double>(), 60.0);
  std::printf("node-check on course-4x4080: %s\n", t.dump().c_str());

  testing::Run plain = NodeCheck("course-4x4080.json");
  EXPECT_EQ(plain.outcome.exit_code, 0);
  EXPECT_EQ(plain.outcome.out, "OK\n");
  EXPECT_NE(plain.outcome.err.find("a simulated machine"), std::string::npos) << plain.outcome.err;
}

TEST_F(NodeCheckSim, HealthFaultsNameEachCard) {
  testing::Run run = NodeCheck("health-faults.json");
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.out << run.outcome.err;
  const std::string& line = run.line;
  EXPECT_EQ(line.rfind("FAIL: ", 0), 0u) << line;
  EXPECT_TRUE(Names(line, "GPU0 2 uncorrected ECC errors since the driver loaded")) << line;
  EXPECT_TRUE(Names(line, "GPU0 fell off the bus (XID 79 during the check): reboot")) << line;
  EXPECT_TRUE(Names(line, "GPU1 row remap pending a reset")) << line;
  EXPECT_TRUE(Names(line, "GPU2 PCIe replays growing")) << line;
  EXPECT_TRUE(Names(line, "GPU3 power limit 250 W (default 320 W)")) << line;
  EXPECT_TRUE(Names(line, "GPU3 another process holds 20.0 GiB")) << line;
}

TEST_F(NodeCheckSim, TheHgxNodeToDrain) {
  testing::Run run = NodeCheck("hgx-node-faults.json", {"--expect-gpus", "8", "--expect-model", "H100"});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  EXPECT_EQ(run.line, "FAIL: LC205 GPU3 (0000:5d:00.0) row remap failed; LC402 GPU5 (0000:ab:00.0) PCIe Gen3 x16 (max Gen5 x16); "
                      "LC403 GPU6 (0000:ba:00.0) NVLink 16/18 links up");
  testing::Run healthy = NodeCheck("hgx-8xh100-nvswitch.json", {"--json", "--expect-gpus", "8", "--expect-model", "H100"});
  EXPECT_EQ(healthy.outcome.exit_code, 0) << healthy.outcome.out;
  std::printf("node-check on hgx-8xh100-nvswitch: %s\n", healthy.json["timings_s"].dump().c_str());
}

// Issue 44 on the simulated HGX node: each finding's code, severity and action, the card's UUID and
// serial for the ticket; --report-only of every code found turns the exit code to 0, the findings
// still in --json, held back; an unknown code is bad usage.
TEST_F(NodeCheckSim, CodesSeveritiesAndReportOnlyOnTheHgxNode) {
  testing::Run run = NodeCheck("hgx-node-faults.json", {"--json"});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  ASSERT_EQ(run.json["findings"].size(), 3u) << run.outcome.out;
  const nlohmann::json& lost_links = run.json["findings"][2];
  EXPECT_EQ(lost_links["code"], "LC403");
  EXPECT_EQ(lost_links["severity"], "isolate");
  EXPECT_EQ(lost_links["serial"], "SIM000000006");
  EXPECT_TRUE(lost_links["uuid"].is_string());
  EXPECT_NE(lost_links["action"].get<std::string>().find("nvidia-smi nvlink -s -i 00000000:BA:00.0"), std::string::npos)
      << lost_links["action"];
  EXPECT_NE(run.outcome.err.find("LC403 GPU6 (0000:ba:00.0) NVLink 16/18 links up [isolate]: "), std::string::npos) << run.outcome.err;

  testing::Run held = NodeCheck("hgx-node-faults.json", {"--json", "--report-only", "LC205,LC402,LC403"});
  EXPECT_EQ(held.outcome.exit_code, 0) << held.outcome.err;
  EXPECT_EQ(held.json["line"], "OK");
  ASSERT_EQ(held.json["findings"].size(), 3u);
  for (const nlohmann::json& f : held.json["findings"]) {
    EXPECT_EQ(f["held"], true) << f.dump();
    EXPECT_EQ(f["fails"], false) << f.dump();
  }
  EXPECT_NE(held.outcome.err.find("held back (--report-only), the node is not failed for it: LC205"), std::string::npos)
      << held.outcome.err;

  testing::Run bad = NodeCheck("hgx-node-faults.json", {"--report-only", "LC999"});
  EXPECT_EQ(bad.outcome.exit_code, 2);
  EXPECT_NE(bad.outcome.err.find("no such finding code: LC999"), std::string::npos) << bad.outcome.err;
}

// The issue's three: a pending remap is reset (health-faults GPU1), a cap config (the power-capped
// course machine), a lost NVLink isolate (above); --report-only of the cap's code leaves the band.
TEST_F(NodeCheckSim, PendingRemapIsResetAndACapIsConfig) {
  testing::Run faults = NodeCheck("health-faults.json", {"--json"});
  bool pending = false;
  for (const nlohmann::json& f : faults.json["findings"])
    if (f["code"] == "LC204") pending = f["severity"] == "reset" && f["gpu"] == 1;
  EXPECT_TRUE(pending) << faults.outcome.out;
  testing::Run capped = NodeCheck("course-power-capped.json", {"--json", "--report-only", "LC502"});
  EXPECT_EQ(capped.outcome.exit_code, 1);
  EXPECT_EQ(capped.json["line"], "FAIL: LC601 GPU1 (0000:41:00.0) matmul 30 TFLOPS (expected 68+)");
  ASSERT_GE(capped.json["findings"].size(), 1u);
  EXPECT_EQ(capped.json["findings"][0]["code"], "LC502");
  EXPECT_EQ(capped.json["findings"][0]["severity"], "config");
  EXPECT_EQ(capped.json["findings"][0]["held"], true);
}

TEST_F(NodeCheckSim, SlowLinksAndSlowCards) {
  testing::Run pcie = NodeCheck("course-slow-pcie.json");
  EXPECT_EQ(pcie.outcome.exit_code, 1);
  EXPECT_TRUE(Names(pcie.line, "GPU2 PCIe Gen3 x16 (max Gen4 x16)")) << pcie.line;
  EXPECT_TRUE(Names(pcie.line, "GPU3 PCIe Gen4 x8 (max Gen4 x16)")) << pcie.line;

  testing::Run bridges = NodeCheck("bridged-4xa100-pcie-broken.json");
  EXPECT_EQ(bridges.outcome.exit_code, 1);
  EXPECT_TRUE(Names(bridges.line, "GPU2 NVLink 4/12 links up")) << bridges.line;
  EXPECT_TRUE(Names(bridges.line, "GPU3 NVLink 4/12 links up")) << bridges.line;
  EXPECT_FALSE(Names(bridges.line, "GPU0")) << bridges.line;

  testing::Run capped = NodeCheck("course-power-capped.json");
  EXPECT_EQ(capped.outcome.exit_code, 1);
  EXPECT_TRUE(Names(capped.line, "GPU1 matmul")) << capped.line;
  EXPECT_TRUE(Names(capped.line, "GPU1 power limit 200 W (default 320 W)")) << capped.line;

  testing::Run held = NodeCheck("course-memory-held.json");
  EXPECT_EQ(held.outcome.exit_code, 1);
  EXPECT_TRUE(Names(held.line, "GPU1 another process holds")) << held.line;
}

TEST_F(NodeCheckSim, CannotTellAndBadUsage) {
  // The toolkit's stub driver ahead of the simulated one: no driver to ask.
  testing::Run stub = NodeCheck("course-4x4080.json", {}, {{"LD_LIBRARY_PATH", testing::BuildDir() + "/sim-nvidia-stub"}});
  EXPECT_EQ(stub.outcome.exit_code, 3) << stub.outcome.out << stub.outcome.err;
  EXPECT_EQ(stub.line.rfind("UNKNOWN: ", 0), 0u) << stub.line;
  // ...unless GPUs were expected there: then the node is sick.
  testing::Run expected = NodeCheck("course-4x4080.json", {"--expect-gpus", "4"}, {{"LD_LIBRARY_PATH", testing::BuildDir() + "/sim-nvidia-stub"}});
  EXPECT_EQ(expected.outcome.exit_code, 1) << expected.line;
  // A driver that is there and fails (fabric manager stopped) is a node to drain.
  testing::Run fabric = NodeCheck("driver-init-802-fabric-manager.json", {}, {{"LABCHECK_TEST_FABRIC_RETRY_MS", "10"}});
  EXPECT_EQ(fabric.outcome.exit_code, 1) << fabric.line;
  // Its own code, whose action starts the fabric manager; not LC104's reboot (issue 56).
  EXPECT_EQ(fabric.line.rfind("FAIL: LC111 ", 0), 0u) << fabric.line;

  testing::Run bad = NodeCheck("course-4x4080.json", {"--max-spread", "7"});
  EXPECT_EQ(bad.outcome.exit_code, 2);
  EXPECT_NE(bad.outcome.err.find("--max-spread"), std::string::npos) << bad.outcome.err;
  testing::Run unknown = NodeCheck("course-4x4080.json", {"--expect-gpu", "4"});
  EXPECT_EQ(unknown.outcome.exit_code, 2);
  EXPECT_NE(unknown.outcome.err.find("--expect-gpu"), std::string::npos) << unknown.outcome.err;
}

// Issue 42: one H200 of an SXM board alone on its machine answers for 18 links with no peer at
// the other end: not "NVLink 0/18 links up".
TEST_F(NodeCheckSim, OneSxmCardAloneIsOkOnLinks) {
  testing::Run run = NodeCheck("single-h200.json");
  EXPECT_FALSE(Names(run.line, "GPU0 NVLink")) << run.line;
  EXPECT_EQ(run.line, "OK") << run.outcome.err;
}

// Issue 42: four A40s without bridges (machines/unbridged-4xa40.json). NVML says every NVLink
// port is down because nothing is attached; that is no bridge fitted, not links lost. The A40 is
// catalogued (bridge_links 4, as the RTX 3090 and A6000): all links down is still no bridge, and
// each card is held to the A40 datasheet's bands (BF16 149.7 TFLOPS, 696 GB/s).
TEST_F(NodeCheckSim, UnbridgedA40sAreOkOnLinks) {
  testing::Run run = NodeCheck("unbridged-4xa40.json", {"--json"});
  ASSERT_TRUE(run.json.is_object()) << run.outcome.out << run.outcome.err;
  EXPECT_EQ(run.json["line"], "OK") << run.outcome.err;
  ASSERT_EQ(run.json["gpus"].size(), 4u);
  for (const auto& g : run.json["gpus"]) {
    EXPECT_EQ(g["nvlink"]["down"], 4) << g.dump();
    EXPECT_EQ(g["nvlink"]["active"], 0) << g.dump();
    ASSERT_TRUE(g["matmul_tflops_band_low"].is_number()) << g.dump();
    EXPECT_NEAR(g["matmul_tflops_band_low"].get<double>(), 149.7 * 0.7, 0.01) << g.dump();
    ASSERT_TRUE(g["copy_gbps_band_low"].is_number()) << g.dump();
    EXPECT_NEAR(g["copy_gbps_band_low"].get<double>(), 696 * 0.8, 0.01) << g.dump();
  }
}

// Issue 42: a prolog on a shared node. The job was given GPUs 0 and 2 of 4; the card another job
// holds (bus 41) is not this job's, and the expected count is the job's, not --expect-gpus'.
TEST_F(NodeCheckSim, UnderAJobOnlyItsGpusAreJudged) {
  testing::Run mine = NodeCheck("course-memory-held.json", {"--expect-gpus", "4", "--json"},
                                {{"SLURM_JOB_ID", "7"}, {"SLURM_JOB_GPUS", "0,2"}});
  EXPECT_EQ(mine.outcome.exit_code, 0) << mine.line << mine.outcome.err;
  ASSERT_TRUE(mine.json.is_object()) << mine.outcome.out;
  EXPECT_EQ(mine.json["line"], "OK");
  ASSERT_EQ(mine.json["gpus"].size(), 2u);
  EXPECT_EQ(mine.json["gpus"][0]["pci_bus_id"], "0000:01:00.0");
  EXPECT_EQ(mine.json["gpus"][1]["pci_bus_id"], "0000:81:00.0");
  EXPECT_EQ(mine.json["job_gpus"]["source"], "SLURM_JOB_GPUS");
  // The job given the held card sees it, by its bus id.
  testing::Run held = NodeCheck("course-memory-held.json", {}, {{"SLURM_JOB_ID", "8"}, {"SLURM_JOB_GPUS", "1"}});
  EXPECT_EQ(held.outcome.exit_code, 1) << held.outcome.err;
  EXPECT_EQ(held.line.rfind("FAIL: LC503 GPU0 (0000:41:00.0) another process holds", 0), 0u) << held.line;
}

// Issue 42: CUDA's order is not nvidia-smi's. On course-cvd-order.json CUDA's GPU0 is the card on
// bus 81 (the profile puts CUDA 0..3 on buses 81, 01, c1, 41), so every card is named by its bus id, and
// nvidia-smi -i in gpu.health's hints takes the bus id, never the CUDA ordinal.
TEST_F(NodeCheckSim, CardsAreNamedByTheirBusIdWhereCudasOrderDiffers) {
  testing::Run run = NodeCheck("course-cvd-order.json");
  EXPECT_EQ(run.line, "FAIL: LC502 GPU0 (0000:81:00.0) power limit 300 W (default 320 W); LC502 GPU1 (0000:01:00.0) power limit 310 W "
                      "(default 320 W)");
  // The site capped its cards at 300 W on purpose.
  testing::Run capped = NodeCheck("course-cvd-order.json", {"--expect-power-limit", "300"});
  EXPECT_EQ(capped.line, "OK") << capped.outcome.err;
  EXPECT_EQ(capped.outcome.exit_code, 0);
}

// A drain that was wanted and failed exits 4, so that slurmd logs a failed health check; the
// JSON is still written.
TEST_F(NodeCheckSim, DrainThatFailsExitsFourAndOutWritesTheJson) {
  const std::string dir = ::testing::TempDir() + "node_check_out";
  testing::Run run = NodeCheck("health-faults.json", {"--drain", "--scontrol", "/bin/false", "--node", "gpu07", "--out", dir + "/{node}.json"});
  EXPECT_EQ(run.outcome.exit_code, 4) << run.outcome.err;
  // GPU0 fell off the bus (XID 79 during the check): its worst finding leads.
  EXPECT_EQ(run.line.rfind("FAIL: LC110 GPU0", 0), 0u) << run.line;
  EXPECT_NE(run.outcome.err.find("failed: /bin/false update nodename=gpu07 state=drain reason=\"lab_check: LC110 GPU0"), std::string::npos)
      << run.outcome.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/gpu07.json"));
  std::filesystem::remove_all(dir);
  testing::Run missing = NodeCheck("health-faults.json", {"--drain", "--scontrol", "/nonexistent/scontrol"});
  EXPECT_EQ(missing.outcome.exit_code, 2);
  EXPECT_NE(missing.outcome.err.find("--scontrol"), std::string::npos) << missing.outcome.err;
}

// --drain's policy flags: a bad value is bad usage naming the flag.
TEST_F(NodeCheckSim, BadDrainPolicyValuesExitTwoNamingTheFlag) {
  for (const char* cap : {"0", "150%", "abc"}) {
    testing::Run bad = NodeCheck("course-4x4080.json", {"--drain", "--drain-cap", cap});
    EXPECT_EQ(bad.outcome.exit_code, 2) << cap;
    EXPECT_NE(bad.outcome.err.find("--drain-cap"), std::string::npos) << bad.outcome.err;
  }
  testing::Run zero = NodeCheck("course-4x4080.json", {"--drain", "--resume-after", "0"});
  EXPECT_EQ(zero.outcome.exit_code, 2);
  EXPECT_NE(zero.outcome.err.find("--resume-after"), std::string::npos) << zero.outcome.err;
}

// A stand-in scontrol in `dir` that shows gpu07 drained by lab_check and accepts every update.
std::string ScontrolShowingOurDrain(const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string scontrol = dir + "/scontrol";
  std::ofstream(scontrol) << "#!/bin/sh\n[ \"$1\" = -o ] && echo 'NodeName=gpu07 State=IDLE+DRAIN Partitions=gpu "
                             "Reason=lab_check: GPU0 x [root@2026-12-04T03:05:56]'\nexit 0\n";
  chmod(scontrol.c_str(), 0755);
  return scontrol;
}

// A state dir that cannot be written is exit 3, as --out's: the verdict is still printed and
// Slurm still told. The first of two healthy runs (--resume-after 2) has a count to remember.
TEST_F(NodeCheckSim, AStateDirThatCannotBeWrittenExitsThree) {
  const std::string dir = ::testing::TempDir() + "node_check_state_dir";
  const std::string scontrol = ScontrolShowingOurDrain(dir);
  std::ofstream(dir + "/a-file") << "x";
  testing::Run run = NodeCheck("course-4x4080.json", {"--drain", "--scontrol", scontrol, "--node", "gpu07", "--resume-after", "2",
                                                      "--state-dir", dir + "/a-file"});
  EXPECT_EQ(run.outcome.exit_code, 3) << run.outcome.err;
  EXPECT_EQ(run.line, "OK");
  EXPECT_NE(run.outcome.err.find("--state-dir: cannot write " + dir + "/a-file"), std::string::npos) << run.outcome.err;
  EXPECT_NE(run.outcome.err.find("healthy 1 run(s) in a row of 2"), std::string::npos) << run.outcome.err;
  // Writable: the count is kept and the exit is the verdict's.
  testing::Run kept = NodeCheck("course-4x4080.json", {"--drain", "--scontrol", scontrol, "--node", "gpu07", "--resume-after", "2",
                                                       "--state-dir", dir + "/state", "--json"});
  EXPECT_EQ(kept.outcome.exit_code, 0) << kept.outcome.err;
  EXPECT_EQ(kept.json["drain"]["action"], "waiting_for_healthy_runs");
  EXPECT_TRUE(std::filesystem::exists(dir + "/state/gpu07.json"));
  std::filesystem::remove_all(dir);
}

// A resume that fails (slurmctld away) exits 4 and keeps the record: a reboot-class drain must not
// lose its boot id, or the next run could no longer tell the reboot happened.
TEST_F(NodeCheckSim, AResumeThatFailsKeepsTheRecord) {
  const std::string dir = ::testing::TempDir() + "node_check_resume_fails";
  std::filesystem::create_directories(dir + "/state");
  const std::string scontrol = dir + "/scontrol";
  std::ofstream(scontrol) << "#!/bin/sh\n[ \"$1\" = -o ] && echo 'NodeName=gpu07 State=IDLE+DRAIN Partitions=gpu "
                             "Reason=lab_check: GPU1 XID 79 (GPU has fallen off the bus): reboot [root@2026-12-04T03:05:56]' && exit 0\n"
                             "echo 'slurm_update error: Unable to contact slurm controller' >&2; exit 1\n";
  chmod(scontrol.c_str(), 0755);
  std::ofstream(dir + "/state/gpu07.json") << R"({"healthy_runs": 0, "reboot_boot_id": "boot-before"})";
  std::ofstream(dir + "/boot_id") << "boot-after\n";
  testing::Run run = NodeCheck("course-4x4080.json", {"--drain", "--scontrol", scontrol, "--node", "gpu07", "--state-dir", dir + "/state"},
                               {{"LABCHECK_BOOT_ID_FILE", dir + "/boot_id"}});
  EXPECT_EQ(run.outcome.exit_code, 4) << run.outcome.err;
  EXPECT_NE(run.outcome.err.find("failed: " + scontrol + " update nodename=gpu07 state=resume"), std::string::npos) << run.outcome.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/state/gpu07.json"));
  std::filesystem::remove_all(dir);
}

// A prolog of a job given GPUs 0 and 1 judges those two only: healthy, it resumes nothing, since
// lab_check may have drained the node over another card.
TEST_F(NodeCheckSim, AJobsGpusAloneNeverResumeTheNode) {
  const std::string dir = ::testing::TempDir() + "node_check_job_resume";
  const std::string scontrol = ScontrolShowingOurDrain(dir);
  testing::Run run = NodeCheck("course-4x4080.json", {"--drain", "--scontrol", scontrol, "--node", "gpu07", "--state-dir", dir, "--json"},
                               {{"SLURM_JOB_ID", "42"}, {"SLURM_JOB_GPUS", "0,1"}});
  EXPECT_EQ(run.outcome.exit_code, 0) << run.outcome.err;
  EXPECT_EQ(run.json["drain"]["action"], "not_resumed_job_gpus_only");
  EXPECT_NE(run.outcome.err.find("only the job's GPUs were judged"), std::string::npos) << run.outcome.err;
  std::filesystem::remove_all(dir);
}

// As slurmd starts HealthCheckProgram: `env -i`, no PATH. The drain still finds /usr/bin/scontrol
// (it fails here, with no slurm.conf: exit 4 says so).
TEST_F(NodeCheckSim, WithSlurmdsEmptyEnvironmentScontrolIsFoundOutsidePath) {
  if (access("/usr/bin/scontrol", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/scontrol: install slurm-client";
  testing::Run run = NodeCheck("health-faults.json", {"--drain"}, {{"SLURMD_NODENAME", "n1"}}, /*empty_environment=*/true);
  EXPECT_NE(run.outcome.err.find("/usr/bin/scontrol update nodename=n1 state=drain"), std::string::npos) << run.outcome.err;
  EXPECT_EQ(run.outcome.err.find("no Slurm here"), std::string::npos) << run.outcome.err;
  EXPECT_EQ(run.outcome.exit_code, 4) << run.outcome.err;
}

// GPUs that stopped answering: the check's deadline gives a FAIL, and the drain runs, within
// seconds of it (slurmd's 60 s kill must find the verdict given). The default in slurmd's health
// check is kHealthCheckTimeoutS; here --timeout 5 keeps the test short.
TEST_F(NodeCheckSim, HungGpusStillGiveTheVerdictAndTheDrain) {
  const auto started = std::chrono::steady_clock::now();
  testing::Run run = NodeCheck("course-gpu-hung.json", {"--timeout", "5", "--drain", "--scontrol", "/bin/true", "--node", "gpu07"});
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  EXPECT_EQ(run.line.rfind("FAIL: ", 0), 0u) << run.line;
  EXPECT_NE(run.outcome.err.find("ran: /bin/true update nodename=gpu07 state=drain"), std::string::npos) << run.outcome.err;
  std::printf("hung GPUs: verdict and drain after %.1f s (deadline 5 s)\n", took_s);
}

// A kernel log as `dmesg` prints it, in a file for --kernel-log (course-4x4080's cards are at
// 0000:01:00, 0000:41:00, 0000:81:00 and 0000:c1:00).
std::string KernelLogFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

const char* const kBoot =
    "[    0.000000] Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)\n"
    "[   12.345678] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:34:33 UTC 2025\n";

TEST_F(NodeCheckSim, UsersXidsLeaveTheNodeInService) {
  const std::string log = KernelLogFile(
      "users.log", std::string(kBoot) +
                       "[ 8123.000001] NVRM: Xid (PCI:0000:41:00): 31, pid=4242, name=python3, Ch 00000008, intr 00000000. MMU Fault\n"
                       "[ 9001.500000] NVRM: Xid (PCI:0000:81:00): 13, pid=4343, name=python3, Graphics Exception: ESR 0x405840\n");
  testing::Run run = NodeCheck("course-4x4080.json", {"--json", "--kernel-log", log});
  EXPECT_EQ(run.outcome.exit_code, 0) << run.outcome.out << run.outcome.err;
  ASSERT_TRUE(run.json.is_object()) << run.outcome.out;
  ASSERT_EQ(run.json["xids"].size(), 2u) << run.json["xids"].dump();
  EXPECT_EQ(run.json["xids"][0]["gpu"], 1);
  EXPECT_EQ(run.json["xids"][0]["xid"], 31);
  EXPECT_EQ(run.json["xids"][0]["bucket"], "RESTART_APP");
  EXPECT_EQ(run.json["xids"][0]["time_s"], 8123.000001);
  EXPECT_EQ(run.json["xids"][1]["note"], "pid=4343, name=python3, Graphics Exception: ESR 0x405840");
}

TEST_F(NodeCheckSim, ResetAndRebootClassXidsFailNamingTheAction) {
  const std::string log = KernelLogFile(
      "hardware.log", std::string(kBoot) +
                          "[ 100.0] NVRM: Xid (PCI:0000:41:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error\n"
                          "[ 200.0] NVRM: Xid (PCI:0000:c1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
  testing::Run run = NodeCheck("course-4x4080.json", {"--kernel-log", log});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  EXPECT_EQ(run.line, "FAIL: LC301 GPU1 (0000:41:00.0) XID 48 (Double Bit ECC Error): reset the GPU; LC110 GPU3 (0000:c1:00.0) fell off the bus "
            "(XID 79): reboot");
  // The driver loaded again after both: the reset-class XID is cleared, the reboot-class one not.
  const std::string reloaded = KernelLogFile(
      "reloaded.log", std::string(kBoot) +
                          "[ 100.0] NVRM: Xid (PCI:0000:41:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error\n"
                          "[ 200.0] NVRM: Xid (PCI:0000:c1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
                          "[ 300.0] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:34:33 UTC 2025\n");
  testing::Run after = NodeCheck("course-4x4080.json", {"--kernel-log", reloaded, "--xid-ignore", "79"});
  EXPECT_EQ(after.outcome.exit_code, 0) << after.outcome.out << after.outcome.err;
  testing::Run missing = NodeCheck("course-4x4080.json", {"--kernel-log", "/nonexistent/kern.log"});
  EXPECT_EQ(missing.outcome.exit_code, 2);
  EXPECT_NE(missing.outcome.err.find("/nonexistent/kern.log"), std::string::npos) << missing.outcome.err;
}

TEST_F(NodeCheckSim, AnOutOrMetricsFileThatCannotBeWrittenExitsThree) {
  const std::string blocker = KernelLogFile("not-a-folder", "a file where a folder should be\n");
  testing::Run out = NodeCheck("course-4x4080.json", {"--out", blocker + "/node.json"});
  EXPECT_EQ(out.outcome.exit_code, 3) << out.outcome.err;
  EXPECT_NE(out.outcome.err.find("--out: cannot write"), std::string::npos) << out.outcome.err;
  EXPECT_EQ(out.line, "OK");  // the verdict is still said
  testing::Run prom = NodeCheck("course-4x4080.json", {"--prometheus", blocker + "/lab_check.prom"});
  EXPECT_EQ(prom.outcome.exit_code, 3) << prom.outcome.err;
  testing::Run named = NodeCheck("course-4x4080.json", {"--prometheus", "/tmp/lab_check.txt"});
  EXPECT_EQ(named.outcome.exit_code, 2);
  EXPECT_NE(named.outcome.err.find(".prom"), std::string::npos) << named.outcome.err;
}

TEST_F(NodeCheckSim, ABrokenProfileSaysWhatIsWrongWithIt) {
  const std::string profile =
      KernelLogFile("broken-profile.json", R"({"base": ")" + testing::Profile("course-4x4080.json") + R"(", "no_such_key": 1})");
  testing::Run run = NodeCheck("course-4x4080.json", {}, {{"LABCHECK_SIM_MACHINE", profile}});
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.out;
  EXPECT_NE(run.outcome.err.find("nvsim: "), std::string::npos) << run.outcome.err;
  EXPECT_NE(run.outcome.err.find("no_such_key"), std::string::npos) << run.outcome.err;
}

}  // namespace
}  // namespace labcheck::node_check

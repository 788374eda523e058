// Issue 42, the cards people have, with the real binary on simulated machines: a deliberate power
// cap on every card (the matmul band follows the cap), an MPS server as the only process on a card,
// cuInit 802 while the fabric manager is still registering an NVSwitch board's GPUs at boot, a MIG
// slice judged by its share of the card (H100, A100, A30).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <utility>
#include <vector>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpu/health/pid_namespace.h"
#include "node_check_run.h"

namespace labcheck::node_check {
namespace {

using testing::NodeCheck;

class NodeCheckCardsSim : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SimPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
  }
};

bool Mentions(const std::string& line, const std::string& what) { return line.find(what) != std::string::npos; }

// machines/course-deliberate-cap.json: every RTX 4080 capped at 250 W of 320, ~49 TFLOPS BF16.
// The full band's low edge is 97.5 × 0.7 = 68 TFLOPS, less 20 % = 54.6: without the flag both the
// limit and the matmul are findings. With --expect-power-limit 250 the band is 68.25 × 250/320 =
// 53.3 TFLOPS (less 20 %: 42.7), which the capped cards meet.
TEST_F(NodeCheckCardsSim, DeliberateCapIsOkWithTheFlagAndTheBandFollowsIt) {
  testing::Run plain = NodeCheck("course-deliberate-cap.json");
  EXPECT_EQ(plain.outcome.exit_code, 1) << plain.outcome.err;
  EXPECT_TRUE(Mentions(plain.line, "GPU0 (0000:01:00.0) power limit 250 W (default 320 W)")) << plain.line;
  EXPECT_TRUE(Mentions(plain.line, "GPU3 (0000:c1:00.0) matmul ")) << plain.line;
  EXPECT_TRUE(Mentions(plain.line, "TFLOPS (expected 68+)")) << plain.line;

  testing::Run capped = NodeCheck("course-deliberate-cap.json", {"--expect-power-limit", "250", "--json"});
  EXPECT_EQ(capped.outcome.exit_code, 0) << capped.line << capped.outcome.err;
  ASSERT_TRUE(capped.json.is_object()) << capped.outcome.out;
  EXPECT_EQ(capped.json["line"], "OK");
  ASSERT_EQ(capped.json["gpus"].size(), 4u);
  for (const auto& g : capped.json["gpus"]) {
    ASSERT_TRUE(g["matmul_tflops_band_low"].is_number()) << g.dump();
    EXPECT_NEAR(g["matmul_tflops_band_low"].get<double>(), 97.5 * 0.7 * 250 / 320, 0.01) << g.dump();
  }

  // A cap lower than the site's: the limit is named, not excused.
  testing::Run lower = NodeCheck("course-deliberate-cap.json", {"--expect-power-limit", "300"});
  EXPECT_EQ(lower.outcome.exit_code, 1);
  EXPECT_TRUE(Mentions(lower.line, "GPU0 (0000:01:00.0) power limit 250 W (expected 300+)")) << lower.line;
}

// A process that sleeps under `name` as the kernel keeps it (/proc/PID/comm: 15 characters at
// most, cut silently, as a real nvidia-cuda-mps-server reads there), ended when the test ends.
class NamedProcess {
 public:
  explicit NamedProcess(const char* name) : pid_(fork()) {
    if (pid_ == 0) {
      prctl(PR_SET_NAME, name, 0, 0, 0);
      pause();
      _exit(0);
    }
  }
  ~NamedProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

// machines/course-mps-server.json with NVML's process on every card being `process`: NVML gives a
// host pid, and lab_check names it from /proc, so the pid must be a live process's.
std::string MpsProfileWith(const NamedProcess& process) {
  const std::string path = ::testing::TempDir() + "course-mps-server-" + std::to_string(process.pid()) + ".json";
  std::ofstream(path) << nlohmann::json{{"base", testing::Profile("course-mps-server.json")},
                                        {"gpu_defaults", {{"health", {{"processes", {{{"pid", process.pid()}, {"used_gib", 12}}}}}}}}}
                             .dump();
  return path;
}

// The simulated NVML gives pids of the namespace the test runs in, where a real driver gives the
// host's (gpu/health/pid_namespace.h); this stands the test's namespace in for the host's, as a
// node-check run by slurmd on the host sees it. `other` stands for a container's.
std::vector<std::pair<std::string, std::string>> AsSeenFrom(const NamedProcess& process, bool host) {
  const std::string own = gpu::health::ReadPidNamespace().link;
  return {{"LABCHECK_SIM_MACHINE", MpsProfileWith(process)}, {"LABCHECK_TEST_HOST_PID_NS", host ? own : own + "-other"}};
}

// With MPS the one process NVML lists on each card is MPS's server, holding its clients' memory:
// infrastructure, not a previous job's leftover. The same 12 GiB under another name is one.
TEST_F(NodeCheckCardsSim, MpsServerIsNotAnotherProcess) {
  const NamedProcess server("nvidia-cuda-mps-server");
  ASSERT_GT(server.pid(), 0);
  testing::Run mps = NodeCheck("course-mps-server.json", {}, AsSeenFrom(server, true));
  EXPECT_EQ(mps.outcome.exit_code, 0) << mps.line << mps.outcome.err;
  EXPECT_EQ(mps.line, "OK");

  const NamedProcess notebook("python3");
  ASSERT_GT(notebook.pid(), 0);
  testing::Run held = NodeCheck("course-mps-server.json", {}, AsSeenFrom(notebook, true));
  EXPECT_EQ(held.outcome.exit_code, 1) << held.outcome.err;
  EXPECT_TRUE(Mentions(held.line, "GPU0 (0000:01:00.0) another process holds 12.0 GiB")) << held.line;
}

// From a container's PID namespace the same pid is a host pid: it is not named from the
// container's /proc (where it would be some other process), so the server is not excused there,
// and the line gives the pid to look up on the host.
TEST_F(NodeCheckCardsSim, FromAContainerNvmlsPidsAreNotNamed) {
  const NamedProcess server("nvidia-cuda-mps-server");
  ASSERT_GT(server.pid(), 0);
  testing::Run run = NodeCheck("course-mps-server.json", {"--json"}, AsSeenFrom(server, false));
  EXPECT_EQ(run.outcome.exit_code, 1) << run.outcome.err;
  EXPECT_TRUE(Mentions(run.outcome.out, fmt::format("another process holds 12.0 GiB (host PID {}: not nameable", server.pid())))
      << run.outcome.out;
}

// At boot the fabric manager registers the GPUs for a while and cuInit says 802 until it has:
// node-check runs its child again (fabric_retry.h; the step scaled down here) and judges the node
// once the fabric is ready. A fabric that stays in progress is "still starting", not "not running";
// one whose registration never started may be either, and the line says both.
TEST_F(NodeCheckCardsSim, FabricStillRegisteringAtBootIsWaitedFor) {
  testing::Run ready = NodeCheck("driver-init-802-fabric-registering.json", {}, {{"LABCHECK_TEST_FABRIC_RETRY_MS", "500"}});
  EXPECT_EQ(ready.outcome.exit_code, 0) << ready.line << ready.outcome.err;
  EXPECT_EQ(ready.line, "OK");
  EXPECT_TRUE(Mentions(ready.outcome.err, "cuInit 802 (NVSwitch fabric not ready), retried")) << ready.outcome.err;

  testing::Run stuck = NodeCheck("driver-init-802-fabric-stuck.json", {}, {{"LABCHECK_TEST_FABRIC_RETRY_MS", "10"}});
  EXPECT_EQ(stuck.outcome.exit_code, 1) << stuck.outcome.err;
  EXPECT_TRUE(Mentions(stuck.line, "the NVSwitch fabric is still starting")) << stuck.line;
  EXPECT_FALSE(Mentions(stuck.line, "not running")) << stuck.line;
  EXPECT_TRUE(Mentions(stuck.outcome.err, "retried 5 times")) << stuck.outcome.err;

  testing::Run stopped = NodeCheck("driver-init-802-fabric-manager.json", {}, {{"LABCHECK_TEST_FABRIC_RETRY_MS", "10"}});
  EXPECT_EQ(stopped.outcome.exit_code, 1) << stopped.outcome.err;
  EXPECT_TRUE(Mentions(stopped.line, "nvidia-fabricmanager is not running, or not yet started after boot")) << stopped.line;
}

// With --expect-mig on, a MIG node whose one slice performs as its share of the card is OK, and
// the slice's bands are the whole card's × its share (gpus[].matmul_tflops_band_low, copy_…).
void ExpectSliceHeldToItsShare(const std::string& machine, double matmul_band_low, double copy_band_low) {
  testing::Run run = NodeCheck(machine, {"--expect-mig", "on", "--json"});
  EXPECT_EQ(run.outcome.exit_code, 0) << run.line << run.outcome.err;
  ASSERT_TRUE(run.json.is_object()) << run.outcome.out;
  EXPECT_EQ(run.json["line"], "OK");
  ASSERT_EQ(run.json["gpus"].size(), 1u);
  const auto& g = run.json["gpus"][0];
  ASSERT_TRUE(g["matmul_tflops_band_low"].is_number()) << g.dump();
  EXPECT_NEAR(g["matmul_tflops_band_low"].get<double>(), matmul_band_low, 0.01) << g.dump();
  ASSERT_TRUE(g["copy_gbps_band_low"].is_number()) << g.dump();
  EXPECT_NEAR(g["copy_gbps_band_low"].get<double>(), copy_band_low, 0.01) << g.dump();
}

// Without --expect-mig on, the MIG mode is the finding, never the slice's matmul.
void ExpectOnlyTheMigModeFound(const std::string& machine, const std::string& card) {
  testing::Run off = NodeCheck(machine);
  EXPECT_EQ(off.outcome.exit_code, 1);
  EXPECT_TRUE(Mentions(off.line, card + " MIG on (expected off)")) << off.line;
  EXPECT_FALSE(Mentions(off.line, "matmul")) << off.line;
}

// machines/h100-mig-1g-slice.json: CUDA sees one 1g.10gb slice of an H100 (16 of 132 SMs, 9.75
// GiB). Its band is the whole card's × 16/132 (matmul) and × 9.75/80 (copy), so its ~87 TFLOPS is
// not "far below" the card's 989.5 × 0.7; --expect-mig on accepts the MIG node.
TEST_F(NodeCheckCardsSim, MigSliceIsJudgedByItsShare) {
  ExpectSliceHeldToItsShare("h100-mig-1g-slice.json", 989.5 * 0.7 * 16 / 132, 3350 * 0.8 * 9.75 / 80);
  ExpectOnlyTheMigModeFound("h100-mig-1g-slice.json", "GPU0 (0000:18:00.0)");
}

// machines/a100-mig-1g-slice.json: the A100's catalog entry has no SM count, so its 1g.10gb slice
// is held to 1/7 of the card's band (MIG user guide: a 1g profile has 1/7 of the SMs); the 80 GB
// card is the one its name gives, so the copy band is the 80 GB card's × 9.5/80.
TEST_F(NodeCheckCardsSim, AnA100SliceIsJudgedByItsComputeSlices) {
  ExpectSliceHeldToItsShare("a100-mig-1g-slice.json", 312 * 0.7 / 7, 1935 * 0.8 * 9.5 / 80);
}

// machines/a30-mig-1g-slice.json: the A30 has four compute slices (MIG user guide) and no SM
// count in the catalog, so its 1g.6gb slice is held to 1/4 of the card's band, not to the whole
// card's 165 × 0.7 (where its ~31 TFLOPS would read "far below"); the copy band is its share of the
// card's 24 GB.
TEST_F(NodeCheckCardsSim, AnA30SliceIsHeldToAQuarterOfTheCard) {
  ExpectSliceHeldToItsShare("a30-mig-1g-slice.json", 165 * 0.7 / 4, 933 * 0.8 * 5.75 / 24);
  ExpectOnlyTheMigModeFound("a30-mig-1g-slice.json", "GPU0 (0000:18:00.0)");
}

}  // namespace
}  // namespace labcheck::node_check

// What a real driver and NCCL do that the sim used to forgive (issue 20, items 6 and 9), through the
// real binary's child jobs on simulated machines:
//   - after a collective stalls, the communicator is aborted, never destroyed, and nothing waits for
//     its stream: the child reports instead of being killed with its result lost;
//   - the child prints its result before NVIDIA's libraries are torn down (a teardown that crashes
//     or hangs, "faults/at_unload");
//   - busbw as nccl-tests counts it (host clock) beside the CUDA-event figure.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gpu/jobs/gpu_jobs.h"
#include "gpu/nvidia/cuda_driver.h"
#include "gpu/nvidia/nccl_library.h"
#include "runner/child_job.h"
#include "scenario_support.h"

namespace labcheck::sim {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string SimDir() { return (fs::path(LAB_CHECK_BINARY).parent_path() / "sim-nvidia").string(); }
std::string Machine(const std::string& name) { return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/" + name; }

// NCCL_COMM_ID for this test process and the ranks it forks (computed before forking).
std::string CommId() {
  static const std::string id = "127.0.0.1:" + std::to_string(30000 + getpid() % 20000);
  return id;
}

// A child job on a simulated machine, with a hard timeout, as a parent check runs it.
ChildJobOutcome RunJob(const std::string& machine, const std::string& job, const std::vector<std::string>& args,
                       double timeout_s, std::vector<std::pair<std::string, std::string>> env = {}) {
  env.emplace_back("LD_LIBRARY_PATH", SimDir());
  env.emplace_back("LABCHECK_SIM_MACHINE", Machine(machine));
  return RunChildJob(LAB_CHECK_BINARY, job, args, timeout_s, CancelToken::Never(), env);
}

// A rank that joins the communicator and then never takes part in a collective (a peer stuck
// elsewhere), for `hold_s` seconds. Forked; returns its pid.
pid_t JoinAndHoldRank(const std::string& machine, int rank, int world, double hold_s) {
  const std::string comm_id = CommId();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  setenv("LABCHECK_SIM_MACHINE", Machine(machine).c_str(), 1);
  setenv("NCCL_COMM_ID", comm_id.c_str(), 1);
  LibrarySearchPaths paths;
  paths.ld_library_path = {SimDir()};
  gpu::DriverProblem problem;
  std::unique_ptr<gpu::CudaDriver> driver = gpu::CudaDriver::Load(paths, &problem);
  auto nccl = gpu::Nccl::Load(paths);
  if (!driver || !nccl.ok()) _exit(10);
  gpu::cuda::CUdevice device = 0;
  gpu::cuda::CUcontext context = nullptr;
  if (driver->api().cuDeviceGet(&device, 0) != 0 || driver->api().cuDevicePrimaryCtxRetain(&context, device) != 0 ||
      driver->api().cuCtxSetCurrent(context) != 0)
    _exit(11);
  gpu::nccl::ncclUniqueId id;
  gpu::nccl::ncclComm_t comm = nullptr;
  if ((*nccl)->api().ncclGetUniqueId(&id) != 0 || (*nccl)->api().ncclCommInitRank(&comm, world, id, rank) != 0) _exit(12);
  std::this_thread::sleep_for(std::chrono::duration<double>(hold_s));
  _exit(0);
}

void Reap(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

// 6b: the cluster's report gather, with a peer that joined and never sends its block. The gather
// fails after the sim's rendezvous timeout (5 s in cluster-node.json). Destroying the communicator
// then would wait for the stuck all-gather forever (the sim's ncclCommDestroy does, as NCCL's
// can): the child must abort it and report, well before its parent's hard timeout.
TEST(DriverSemantics, StalledGatherIsAbortedAndReported) {
  const std::string dir = fs::temp_directory_path() / ("labcheck_gather_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir + "/block.json") << R"({"rank": 0})";
  const pid_t peer = JoinAndHoldRank("cluster-node.json", 1, 2, 40);
  const auto started = std::chrono::steady_clock::now();
  ChildJobOutcome out = RunJob("cluster-node.json", gpu::kClusterGatherJob,
                               {"--rank", "0", "--world", "2", "--local-rank", "0", "--block", dir + "/block.json", "--out",
                                dir + "/gathered.json", "--wait-s", "3"},
                               35, {{"NCCL_COMM_ID", CommId()}});
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  Reap(peer);
  fs::remove_all(dir);
  EXPECT_FALSE(out.process.timed_out) << "the child was killed at its hard timeout: " << out.process.Tail(10);
  ASSERT_FALSE(out.result.ok()) << "a gather without its peer cannot succeed";
  EXPECT_NE(out.result.status().message().find("ncclAllGather"), std::string::npos) << out.result.status().message();
  EXPECT_EQ(out.process.exit_code, 3) << out.process.Describe();  // the job's own error, not a kill
  EXPECT_LT(wall_s, 25);
}

// 6b: the rank job, when the exchange of node keys stalls: it aborts the world communicator and
// reports, never runs the sweep on it (whose set-up synchronises the context, stuck stream and all).
TEST(DriverSemantics, StalledBlockExchangeStopsTheRankJobWithAReport) {
  const std::string progress = fs::temp_directory_path() / ("labcheck_progress_" + std::to_string(getpid()) + ".json");
  const pid_t peer = JoinAndHoldRank("cluster-node.json", 1, 2, 40);
  const auto started = std::chrono::steady_clock::now();
  ChildJobOutcome out = RunJob("cluster-node.json", gpu::kAllReduceRankJob,
                               {"--rank", "0", "--world", "2", "--local-rank", "0", "--node-key", "node-a", "--progress",
                                progress, "--stall-s", "3", "--max-bytes", "1048576"},
                               35, {{"NCCL_COMM_ID", CommId()}});
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  Reap(peer);
  std::remove(progress.c_str());
  EXPECT_FALSE(out.process.timed_out) << "the child was killed at its hard timeout: " << out.process.Tail(10);
  ASSERT_TRUE(out.result.ok()) << out.result.status().message();
  const json& state = *out.result;
  EXPECT_EQ(state.value("phase", ""), "aborted") << state.dump();
  EXPECT_NE(state.value("node_error", "").find("ncclAllGather"), std::string::npos) << state.dump();
  EXPECT_NE(state["sweep"].value("nccl_error", "").find("aborted"), std::string::npos) << state.dump();
  EXPECT_LT(wall_s, 25);
}

// 6b, one node: a hang always. The child sees the stall itself (3 s), aborts, and reports "hung";
// the parent never has to kill it. (scenarios_test.cpp checks the same through the whole check.)
TEST(DriverSemantics, HungAllReduceChildReportsItself) {
  ChildJobOutcome out = RunJob("course-nccl-hang-always.json", gpu::kAllReduceJob, {"--quick", "--stall-s", "3"}, 120);
  EXPECT_FALSE(out.process.timed_out) << out.process.Tail(10);
  ASSERT_TRUE(out.result.ok()) << out.result.status().message();
  EXPECT_TRUE((*out.result)["sweep"].value("hung", false)) << out.result->dump();
}

// 6c: libcuda's teardown crashes. The checks still report their figures: every child prints its
// result before anything of NVIDIA's is unloaded.
TEST(DriverSemantics, CrashAtUnloadLosesNoResult) {
  SimRun run = RunLabCheck({"course-crash-at-unload.json", {"--quick", "--only", "gpu.*,interconnect.*"}});
  ASSERT_TRUE(run.report.is_object()) << run.stderr_text;
  for (const char* id : {"gpu.inventory", "gpu.matmul", "gpu.memory_bandwidth", "gpu.host_device_copy", "interconnect.allreduce"}) {
    const std::string verdict = Verdict(run, id);
    EXPECT_TRUE(verdict == "PASS" || verdict == "WARN") << id << ": " << verdict << " " << CheckText(run, id);
  }
  EXPECT_TRUE(Measured(run, "nccl.allreduce_busbw_gbps").has_value());
  EXPECT_TRUE(Measured(run, "gpu0.matmul_bf16_tflops").has_value());
}

// 6c: libcuda's teardown hangs. The result is out before it, and the child leaves without it.
TEST(DriverSemantics, HangAtUnloadLosesNoResult) {
  ChildJobOutcome out = RunJob("course-hang-at-unload.json", gpu::kInventoryJob, {}, 30);
  EXPECT_FALSE(out.process.timed_out) << "killed at its hard timeout, result lost: " << out.process.Tail(10);
  ASSERT_TRUE(out.result.ok()) << out.result.status().message();
  EXPECT_EQ(out.result->value("outcome", ""), "ok");
  EXPECT_EQ((*out.result)["gpus"].size(), 4u) << out.result->dump();
}

// 9: host launch overhead (500 µs per ncclAllReduce call, four ranks per iteration) that the
// CUDA events on the streams do not see. nccl-tests' host clock does: at 1 MiB, where a collective
// takes ~0.5 ms, the loop is launch-bound (2 ms per iteration); at 256 MiB (~28 ms each) the
// overhead hides behind the GPUs and the two figures meet. The host clock is real time, so the
// test runs alone (RUN_SERIAL, tests/sim/CMakeLists.txt): another test on the 2 cores would
// stretch it.
TEST(DriverSemantics, NcclTestsHostClockSeesLaunchOverheadEventsDoNot) {
  ChildJobOutcome out = RunJob("course-launch-bound.json", gpu::kAllReduceJob, {"--quick"}, 60);
  ASSERT_TRUE(out.result.ok()) << out.result.status().message() << out.process.Tail(10);
  const json& sizes = (*out.result)["sweep"]["sizes"];
  ASSERT_EQ(sizes.size(), 3u) << out.result->dump();
  for (const json& s : sizes) {
    ASSERT_TRUE(s["busbw_gbps_nccl_tests"].is_number()) << s.dump();
    // The host clock covers the events' interval and more.
    EXPECT_GE(s["time_us_nccl_tests"].get<double>(), 0.99 * 1e3 * s["time_ms"].get<double>()) << s.dump();
    EXPECT_LE(s["busbw_gbps_nccl_tests"].get<double>(), 1.01 * s["busbw_gbps"].get<double>()) << s.dump();
    EXPECT_DOUBLE_EQ(s["time_us_nccl_tests"].get<double>(), s["host_time_us"].get<double>());  // one process
  }
  const json& small = sizes.front();
  const json& large = sizes.back();
  EXPECT_GE(small["time_us_nccl_tests"].get<double>(), 4 * 500) << small.dump();
  EXPECT_LT(small["busbw_gbps_nccl_tests"].get<double>(), 0.5 * small["busbw_gbps"].get<double>()) << small.dump();
  EXPECT_GT(large["busbw_gbps_nccl_tests"].get<double>(), 0.8 * large["busbw_gbps"].get<double>()) << large.dump();
  EXPECT_NEAR(large["busbw_gbps"].get<double>(), 14.2, 14.2 * 0.05);  // the events: the profile's curve
}

}  // namespace
}  // namespace labcheck::sim

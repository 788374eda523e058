// End to end, with two "nodes" on this machine: the real binary under mpirun, under torchrun's
// launcher, and started by hand with a launcher's variables, over the simulated NVIDIA libraries
// (their NCCL sums across processes for real); the faults of issue 14. Skipped where the
// simulated libraries or mpirun are missing.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "cluster_run_support.h"
#include "platform/files.h"

namespace labcheck::cluster {
namespace {

using nlohmann::json;
using testing::ClusterCheck;
using testing::ReportJson;

// The simulated machine a rank sees (one GPU is enough: each rank is its own node).
std::string SimProfile(const std::string& name = "cluster-node") {
  return std::string(LAB_CHECK_SOURCE_DIR) + "/tests/sim/machines/" + name + ".json";
}

bool HaveMpirun() {
  ChildSpec spec;
  spec.argv = {"mpirun", "--version"};
  spec.timeout_s = 20;
  return RunChild(spec, CancelToken::Never()).exited_ok();
}

class ClusterRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SimNcclPresent()) GTEST_SKIP() << "no simulated NVIDIA libraries in " << testing::SimDir();
    dir_ = *MakePrivateTempDir("lab_check_cluster_test");
    port_ = testing::FreePortPair();
    // Every "node" has one active 200 Gb/s InfiniBand port: 25 GB/s expected across nodes.
    const std::string port_dir = dir_ + "/sys/class/infiniband/mlx5_0/ports/1";
    std::filesystem::create_directories(port_dir);
    (void)WriteFileAtomically(port_dir + "/rate", "200 Gb/sec (4X HDR)\n");
    (void)WriteFileAtomically(port_dir + "/state", "4: ACTIVE\n");
    (void)WriteFileAtomically(port_dir + "/link_layer", "InfiniBand\n");
  }
  void TearDown() override {
    if (!dir_.empty()) RemoveTree(dir_);
  }
  // The variables every rank needs: the simulated libraries, and one "node" per rank.
  std::vector<std::pair<std::string, std::string>> SimEnv() const {
    return {{"LD_LIBRARY_PATH", testing::SimDir()}, {"LABCHECK_SIM_MACHINE", SimProfile()}, {"LABCHECK_TEST_NODE_PER_RANK", "1"},
            {"LABCHECK_SYS_ROOT", dir_ + "/sys"}};
  }
  std::vector<std::string> AllReduceArgs(const std::string& name) const {
    return {LAB_CHECK_BINARY, "allreduce", "--json", "--lang", "en", "--max-mib", "2", "--port", std::to_string(port_),
            "--stall-s", "3", "--timeout", "20", "--out", dir_ + "/" + name + ".md"};
  }
  // mpirun -np 2 with extra variables for both ranks.
  ChildOutcome Mpirun(const std::vector<std::pair<std::string, std::string>>& extra) const {
    ChildSpec spec;
    spec.argv = {"mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2"};
    auto env = SimEnv();
    env.insert(env.end(), extra.begin(), extra.end());
    for (const auto& [k, v] : env) {
      spec.argv.push_back("-x");
      spec.argv.push_back(k + "=" + v);
    }
    for (const std::string& a : AllReduceArgs("mpi")) spec.argv.push_back(a);
    spec.timeout_s = 150;
    return RunChild(spec, CancelToken::Never());
  }
  // One rank started by hand as torchrun would: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT.
  ChildSpec HandRank(int rank, int world, const std::string& name, const std::string& profile = "cluster-node") const {
    ChildSpec spec;
    spec.argv = AllReduceArgs(name);
    spec.set_env = SimEnv();
    spec.set_env[1].second = SimProfile(profile);
    for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{
             {"RANK", std::to_string(rank)}, {"WORLD_SIZE", std::to_string(world)}, {"LOCAL_RANK", "0"},
             {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", std::to_string(port_ - 1)}})
      spec.set_env.emplace_back(k, v);
    spec.timeout_s = 150;
    return spec;
  }
  std::string dir_;
  int port_ = 0;
};

// Both ranks' figures in one merged report, or the test says which is missing.
void ExpectBothRanksFigures(const json& check) {
  const json& data = check["data"];
  EXPECT_EQ(data["world_size"], 2);
  EXPECT_EQ(data["nodes_count"], 2) << "the merged report is missing a node";
  ASSERT_EQ(data["ranks"].size(), 2u);
  for (int r = 0; r < 2; ++r) {
    const json& rank = data["ranks"][r];
    ASSERT_TRUE(rank.is_object()) << "rank " << r << " is missing from the merged report";
    EXPECT_EQ(rank["rank"], r);
    // Each rank is its own node here. The blocks went through AllGatherBlocks: stale bytes (a
    // pageable copy not yet landed when the gather read them) lose the rank's block or its node.
    EXPECT_EQ(rank["node"], r) << "rank " << r << " is not on its own node: " << rank.dump();
    ASSERT_TRUE(rank.contains("sweep")) << "rank " << r << " has no sweep";
    EXPECT_FALSE(rank["sweep"]["sizes"].empty()) << "rank " << r << " has no figures";
  }
  ASSERT_FALSE(data["sizes"].empty());
  for (size_t i = 0; i < data["sizes"].size(); ++i) {
    const json& s = data["sizes"][i];
    EXPECT_EQ(s["ranks_reporting"], 2);
    EXPECT_TRUE(s["busbw_gbps"].is_number());
    // nccl-tests' figure: the ranks' own host clocks, averaged.
    double sum = 0;
    for (int r = 0; r < 2; ++r) sum += data["ranks"][r]["sweep"]["sizes"][i].value("host_time_us", 0.0);
    ASSERT_TRUE(s["time_us_nccl_tests"].is_number()) << s.dump();
    EXPECT_NEAR(s["time_us_nccl_tests"].get<double>(), sum / 2, 1e-6 * sum) << s.dump();
    EXPECT_TRUE(s["busbw_gbps_nccl_tests"].is_number()) << s.dump();
  }
  bool has_busbw = false;
  for (const json& m : check["measurements"]) has_busbw = has_busbw || m["key"] == "cluster.allreduce_busbw_gbps";
  EXPECT_TRUE(has_busbw) << "the cluster figure is missing";
}

TEST_F(ClusterRun, MpirunTwoRanksPrintOneMergedReport) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (openmpi-bin)";
  ChildOutcome out = Mpirun({});
  ASSERT_TRUE(out.exited_ok()) << out.Describe() << "\n" << out.Tail(40);
  json report = ReportJson(out.out);
  ASSERT_TRUE(report.is_object()) << out.out;
  EXPECT_EQ(out.out.find("\"checks\""), out.out.rfind("\"checks\"")) << "more than one rank printed a report";
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr);
  EXPECT_NE(check->value("status", ""), "FAIL") << check->dump(1);
  ExpectBothRanksFigures(*check);
  EXPECT_EQ((*check)["data"]["launcher"], "Open MPI");
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/mpi.json"));
}

TEST_F(ClusterRun, TwoTorchrunStyleRanks) {
  ChildSpec r0 = HandRank(0, 2, "t0"), r1 = HandRank(1, 2, "t1");
  std::vector<ChildOutcome> out = testing::RunTogether({r0, r1});
  ASSERT_TRUE(out[0].exited_ok()) << out[0].Describe() << "\n" << out[0].Tail(40);
  EXPECT_TRUE(out[1].exited_ok()) << out[1].Describe();
  EXPECT_TRUE(out[1].out.empty()) << "rank 1 must print nothing: " << out[1].out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/t1.json")) << "rank 1 must write nothing";
  const json report = ReportJson(out[0].out);
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr) << out[0].out;
  ExpectBothRanksFigures(*check);
  EXPECT_EQ((*check)["data"]["launcher"], "torchrun");
}

// Every exchange of blocks (node keys, unique ids, the per-rank report) goes through ncclAllGather
// in the tests above; without it (an NCCL that lacks the symbol) through the all-reduce fallback.
TEST_F(ClusterRun, WithoutAllGatherTheFallbackGathersTheSame) {
  ChildSpec r0 = HandRank(0, 2, "g0", "cluster-node-old-nccl"), r1 = HandRank(1, 2, "g1", "cluster-node-old-nccl");
  std::vector<ChildOutcome> out = testing::RunTogether({r0, r1});
  ASSERT_TRUE(out[0].exited_ok()) << out[0].Describe() << "\n" << out[0].Tail(40);
  const json report = ReportJson(out[0].out);
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr) << out[0].out;
  ExpectBothRanksFigures(*check);
}

// The real launcher: two torchrun agents with --nnodes 2 meet through c10d on 127.0.0.1 and each
// starts one lab_check (--no_python); MASTER_ADDR/MASTER_PORT come from torchrun itself.
TEST_F(ClusterRun, TorchrunLauncherAcrossTwoNodes) {
  const char* chosen = std::getenv("LABCHECK_TEST_PYTHON");
  const std::string python = chosen && *chosen ? chosen : "/usr/bin/python3";
  ChildSpec probe;
  probe.argv = {python, "-c", "import torch.distributed.run"};
  probe.timeout_s = 60;
  if (!RunChild(probe, CancelToken::Never()).exited_ok()) GTEST_SKIP() << "no torch.distributed.run in " << python;
  const int rdzv = testing::FreePortPair();
  std::vector<ChildSpec> agents(2);
  for (int n = 0; n < 2; ++n) {
    // --redirects/--tee: torch 1.13's default cannot be parsed on Python 3.11 (docs/smoke-tests.md).
    agents[n].argv = {python, "-m", "torch.distributed.run", "--nnodes", "2", "--nproc_per_node", "1", "--rdzv_backend", "c10d",
                      "--rdzv_endpoint", "127.0.0.1:" + std::to_string(rdzv), "--rdzv_id", "lab" + std::to_string(rdzv),
                      "--max_restarts", "0", "--redirects", "2", "--tee", "2", "--no_python"};
    for (const std::string& a : AllReduceArgs("torchrun" + std::to_string(n)))
      if (a != "--port" && a != std::to_string(port_)) agents[n].argv.push_back(a);
    agents[n].set_env = SimEnv();
    agents[n].timeout_s = 200;
  }
  std::vector<ChildOutcome> out = testing::RunTogether(agents);
  int reports = 0;
  for (const ChildOutcome& o : out) {
    ASSERT_TRUE(o.exited_ok()) << o.Describe() << "\n" << o.Tail(30);
    const json report = ReportJson(o.out);
    if (const json* check = ClusterCheck(report)) {
      ++reports;
      ExpectBothRanksFigures(*check);
      EXPECT_EQ((*check)["data"]["launcher"], "torchrun");
      EXPECT_EQ((*check)["data"]["rendezvous"], "MASTER_ADDR");
    }
  }
  EXPECT_EQ(reports, 1) << "exactly the node of rank 0 prints the report";
}

// Two ways of timing the same sweep (issue 20, item 9). Rank 1 runs its all-reduce at half the
// speed and spends 2 ms of host time in every ncclAllReduce call. The CUDA-event figure takes the
// slowest rank's time; nccl-tests' averages the ranks' host clocks, which see the launches.
TEST_F(ClusterRun, NcclTestsFigureAveragesTheRanksHostClocks) {
  ChildSpec r0 = HandRank(0, 2, "n0"), r1 = HandRank(1, 2, "n1", "cluster-node-launch-bound");
  std::vector<ChildOutcome> out = testing::RunTogether({r0, r1});
  ASSERT_TRUE(out[0].exited_ok()) << out[0].Describe() << "\n" << out[0].Tail(40);
  const json report = ReportJson(out[0].out);
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr) << out[0].out;
  ExpectBothRanksFigures(*check);
  const json& data = (*check)["data"];
  for (size_t i = 0; i < data["sizes"].size(); ++i) {
    const json& s = data["sizes"][i];
    const json& fast = data["ranks"][0]["sweep"]["sizes"][i];
    const json& slow = data["ranks"][1]["sweep"]["sizes"][i];
    EXPECT_GT(slow["time_ms"].get<double>(), 1.5 * fast["time_ms"].get<double>()) << "rank 1 runs at half the busbw";
    EXPECT_DOUBLE_EQ(s["time_ms"].get<double>(), slow["time_ms"].get<double>()) << "the slowest rank's time";
    EXPECT_GE(slow["host_time_us"].get<double>(), 2000) << slow.dump();  // one 2 ms launch per iteration
    EXPECT_GT(s["time_us_nccl_tests"].get<double>(), 1e3 * s["time_ms"].get<double>()) << s.dump();
    EXPECT_LT(s["busbw_gbps_nccl_tests"].get<double>(), s["busbw_gbps"].get<double>()) << s.dump();
  }
  bool both = false;
  for (const json& m : check->at("measurements")) both = both || m["key"] == "cluster.allreduce_busbw_nccl_tests_gbps";
  EXPECT_TRUE(both) << "the nccl-tests figure is missing";
}

TEST_F(ClusterRun, KilledRankIsNamed) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (openmpi-bin)";
  ChildOutcome out = Mpirun({{"LABCHECK_TEST_ALLREDUCE_KILL_RANK", "1"}, {"LABCHECK_TEST_ALLREDUCE_FAULT_SIZE", "1"}});
  EXPECT_EQ(out.exit_code, 1) << out.Describe() << "\n" << out.Tail(40);
  const json report = ReportJson(out.out);
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr) << out.out;
  EXPECT_EQ(check->value("status", ""), "FAIL");
  EXPECT_EQ((*check)["data"]["dead_ranks"], json::array({1})) << (*check)["data"].dump(1);
  EXPECT_NE(check->value("reason", "").find("rank 1"), std::string::npos) << check->value("reason", "");
  // Rank 0's first size (before the fault) is still there.
  EXPECT_FALSE((*check)["data"]["ranks"][0]["sweep"]["sizes"].empty());
}

TEST_F(ClusterRun, HangingRankIsNamed) {
  ChildSpec r0 = HandRank(0, 2, "h0"), r1 = HandRank(1, 2, "h1");
  for (ChildSpec* s : {&r0, &r1}) {
    s->set_env.emplace_back("LABCHECK_TEST_ALLREDUCE_HANG_RANK", "1");
    s->set_env.emplace_back("LABCHECK_TEST_ALLREDUCE_FAULT_SIZE", "1");
    // The hung rank's sweep is stopped at its timeout.
    for (size_t i = 0; i + 1 < s->argv.size(); ++i)
      if (s->argv[i] == "--timeout") s->argv[i + 1] = "10";
  }
  std::vector<ChildOutcome> out = testing::RunTogether({r0, r1});
  EXPECT_EQ(out[0].exit_code, 1) << out[0].Describe() << "\n" << out[0].Tail(40);
  const json report = ReportJson(out[0].out);
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr) << out[0].out;
  // Rank 1 stopped short of the second size and is the one named. Rank 0 entered it and hangs
  // with it: waiting (or stalled, when its own stall detector came first), never "hung".
  const json& hung = (*check)["data"]["hung_ranks"];
  EXPECT_EQ(hung, json::array({1})) << (*check)["data"].dump(1);
  const json& waiting = (*check)["data"]["waiting_ranks"];
  const json& stalled = (*check)["data"]["stalled_ranks"];
  EXPECT_TRUE(waiting == json::array({0}) || stalled == json::array({0})) << (*check)["data"].dump(1);
  EXPECT_EQ((*check)["data"]["dead_ranks"], json::array());
  EXPECT_NE(check->value("reason", "").find("rank 1 (node 1): hung"), std::string::npos) << check->value("reason", "");
}

TEST_F(ClusterRun, SlowNodeIsNamed) {
  ChildSpec r0 = HandRank(0, 2, "s0"), r1 = HandRank(1, 2, "s1", "cluster-node-slow");
  std::vector<ChildOutcome> out = testing::RunTogether({r0, r1});
  ASSERT_TRUE(out[0].exited_ok()) << out[0].Describe() << "\n" << out[0].Tail(40);
  const json report = ReportJson(out[0].out);
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr) << out[0].out;
  EXPECT_EQ(check->value("status", ""), "WARN") << check->dump(1);
  EXPECT_EQ((*check)["data"]["slowest_node"], 1) << (*check)["data"]["nodes"].dump(1);
  EXPECT_EQ((*check)["data"]["out_of_line_nodes"], json::array({1}));
  EXPECT_NE(check->value("reason", "").find("node 1 alone"), std::string::npos) << check->value("reason", "");
}

TEST_F(ClusterRun, WrongSumOnOneNodeIsNamed) {
  ChildSpec r0 = HandRank(0, 2, "w0", "cluster-node-wrong-sum"), r1 = HandRank(1, 2, "w1", "cluster-node-wrong-sum");
  std::vector<ChildOutcome> out = testing::RunTogether({r0, r1});
  EXPECT_EQ(out[0].exit_code, 1) << out[0].Describe() << "\n" << out[0].Tail(40);
  const json report = ReportJson(out[0].out);
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr) << out[0].out;
  EXPECT_EQ(check->value("status", ""), "FAIL");
  EXPECT_EQ((*check)["data"]["wrong_sum_ranks"], json::array({1})) << (*check)["data"].dump(1);
  EXPECT_NE(check->value("reason", "").find("rank 1 (node 1): wrong sum"), std::string::npos) << check->value("reason", "");
}

TEST_F(ClusterRun, MismatchedWorldSizesFailWithoutHanging) {
  ChildSpec r0 = HandRank(0, 2, "m0"), r1 = HandRank(1, 3, "m1");
  for (ChildSpec* s : {&r0, &r1})
    for (size_t i = 0; i + 1 < s->argv.size(); ++i)
      if (s->argv[i] == "--timeout") s->argv[i + 1] = "8";
  std::vector<ChildOutcome> out = testing::RunTogether({r0, r1});
  EXPECT_FALSE(out[0].timed_out);
  EXPECT_EQ(out[0].exit_code, 1) << out[0].Describe() << "\n" << out[0].Tail(40);
  const json report = ReportJson(out[0].out);
  const json* check = ClusterCheck(report);
  ASSERT_NE(check, nullptr) << out[0].out;
  EXPECT_EQ(check->value("status", ""), "FAIL");
  // Rank 1 never joined rank 0's world of 2: it is named as missing or as failing to join.
  const json& data = (*check)["data"];
  const bool named = data["missing_ranks"] == json::array({1}) || data["ranks"][0].contains("init_error");
  EXPECT_TRUE(named) << data.dump(1);
}

}  // namespace
}  // namespace labcheck::cluster

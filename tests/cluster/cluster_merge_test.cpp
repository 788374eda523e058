#include "cluster/cluster_merge.h"

#include <gtest/gtest.h>

namespace labcheck::cluster {
namespace {

using nlohmann::json;

json Sizes(double busbw_scale, int world, bool correct = true) {
  json sizes = json::array();
  for (int mib : {1, 2, 4}) {
    const double bytes = mib * 1048576.0;
    const double algbw = 10.0 * busbw_scale;  // GB/s
    const double time_ms = bytes / (algbw * 1e9) * 1e3;
    sizes.push_back({{"bytes", static_cast<uint64_t>(bytes)}, {"time_ms", time_ms}, {"algbw_gbps", algbw},
                     {"busbw_gbps", world > 1 ? json(algbw * 2.0 * (world - 1) / world) : json(nullptr)}, {"correct", correct}});
  }
  return sizes;
}

// A rank that finished: `node` names its node key, `alone_scale` its node-alone speed.
json Block(int rank, int world, const std::string& node, int local_size, double alone_scale = 1.0) {
  return {{"rank", rank}, {"world_size", world}, {"node_key", node},
          {"nics", {{"ib_ports", json::array({{{"device", "mlx5_0"}, {"port", 1}, {"rate_gbit", 200.0}, {"state", "ACTIVE"}, {"link_layer", "InfiniBand"}}})},
                    {"ethernet", json::array()}}},
          {"peermem", true}, {"nccl_env", json::object()}, {"gpu_name", "Sim GPU"},
          {"child", {{"ended", "ok"}, {"phase", "done"}}},
          {"sweep", {{"sizes", Sizes(1.0, world)}, {"hung", false}, {"nccl_error", ""}, {"wrong_sum", false}}},
          {"node_sweep", {{"sizes", Sizes(alone_scale, local_size)}, {"hung", false}, {"nccl_error", ""}, {"wrong_sum", false}}},
          {"transport", {{"net", "IB"}, {"gdrdma", true}}}};
}

TEST(ClusterMerge, TwoHealthyNodes) {
  MergeInput in;
  in.world_size = 4;
  in.blocks = {Block(0, 4, "a", 2), Block(1, 4, "a", 2), Block(2, 4, "b", 2), Block(3, 4, "b", 2)};
  CheckResult r = MergeClusterRun(in);
  EXPECT_EQ(r.outcome, Outcome::Pass) << r.reason.en;  // 15 GB/s across, 25 GB/s of NICs: above half
  EXPECT_EQ(r.data["world_size"], 4);
  EXPECT_EQ(r.data["nodes_count"], 2);
  ASSERT_EQ(r.data["nodes"].size(), 2u);
  EXPECT_EQ(r.data["nodes"][1]["ranks"], json::array({2, 3}));
  EXPECT_DOUBLE_EQ(r.data["expected_inter_node_gbps"].get<double>(), 25.0);
  ASSERT_NE(r.Find("cluster.allreduce_inter_node_busbw_gbps"), nullptr);
  EXPECT_DOUBLE_EQ(r.Find("cluster.allreduce_inter_node_busbw_gbps")->value, 15.0);
  EXPECT_EQ(r.Find("cluster.allreduce_inter_node_busbw_gbps")->reference, 25.0);
  EXPECT_TRUE(r.data["out_of_line_nodes"].empty());
  for (const json& rank : r.data["ranks"]) EXPECT_FALSE(rank.contains("node_key"));  // no host hashes in reports
  EXPECT_EQ(r.data["ranks"].size(), 4u);
}

// Issue 20, item 9: per size, the CUDA-event figure takes the slowest rank's time; nccl-tests'
// averages the ranks' host clocks (MPI_Allreduce of the time, sum / ranks, in all_reduce_perf).
TEST(ClusterMerge, NcclTestsFigureAveragesTheRanksHostClocks) {
  MergeInput in;
  in.world_size = 2;
  in.blocks = {Block(0, 2, "a", 1), Block(1, 2, "b", 1)};
  for (json* size : {&in.blocks[0]["sweep"]["sizes"][2], &in.blocks[1]["sweep"]["sizes"][2]}) (*size)["time_ms"] = 0.4;
  in.blocks[0]["sweep"]["sizes"][2]["time_ms"] = 0.5;  // 4 MiB: rank 0 the slowest by events
  for (int r = 0; r < 2; ++r)
    for (json& size : in.blocks[r]["sweep"]["sizes"]) size["host_time_us"] = r == 0 ? 600.0 : 1000.0;
  in.blocks[1]["sweep"]["sizes"][0].erase("host_time_us");  // 1 MiB: a rank without the figure
  CheckResult r = MergeClusterRun(in);
  const json& sizes = r.data["sizes"];
  ASSERT_EQ(sizes.size(), 3u);
  const json& four = sizes[2];
  EXPECT_DOUBLE_EQ(four["time_ms"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(four["time_us_nccl_tests"].get<double>(), 800.0);
  const double bytes = 4 * 1048576.0;
  EXPECT_NEAR(four["algbw_gbps_nccl_tests"].get<double>(), bytes / 800e-6 / 1e9, 1e-9);
  EXPECT_NEAR(four["busbw_gbps_nccl_tests"].get<double>(), bytes / 800e-6 / 1e9, 1e-9);  // 2(n−1)/n = 1 for two
  EXPECT_NEAR(four["busbw_gbps"].get<double>(), bytes / 0.5e-3 / 1e9, 1e-9);
  EXPECT_TRUE(sizes[0]["time_us_nccl_tests"].is_null()) << "no average over the ranks without every rank's clock";
  ASSERT_NE(r.Find("cluster.allreduce_busbw_nccl_tests_gbps"), nullptr);
  EXPECT_DOUBLE_EQ(r.Find("cluster.allreduce_busbw_nccl_tests_gbps")->value, four["busbw_gbps_nccl_tests"].get<double>());
  bool column = false;
  for (const Table& t : r.tables)
    for (const Text& h : t.columns) column = column || h.en == "busbw as nccl-tests, GB/s";
  EXPECT_TRUE(column);
}

TEST(ClusterMerge, SlowNodeIsNamed) {
  MergeInput in;
  in.world_size = 4;
  in.blocks = {Block(0, 4, "a", 2), Block(1, 4, "a", 2), Block(2, 4, "b", 2, 0.4), Block(3, 4, "b", 2, 0.4)};
  CheckResult r = MergeClusterRun(in);
  EXPECT_EQ(r.data["slowest_node"], 1);
  EXPECT_EQ(r.data["out_of_line_nodes"], json::array({1}));
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("node 1 alone"), std::string::npos) << r.reason.en;
}

TEST(ClusterMerge, DeadRankIsNamedAndTheSweepIsIncomplete) {
  MergeInput in;
  in.world_size = 2;
  json dead = Block(1, 2, "b", 1);
  dead["child"] = {{"ended", "died"}, {"signal", 9}, {"describe", "killed by SIGKILL"}, {"phase", "sweep"}, {"running_bytes", 4194304}};
  dead["sweep"]["sizes"].erase(2);
  dead.erase("node_sweep");
  json survivor = Block(0, 2, "a", 1);
  survivor["sweep"]["sizes"].erase(2);
  survivor["sweep"]["hung"] = true;
  survivor["sweep"]["stopped_at_bytes"] = 4194304;
  in.blocks = {survivor, dead};
  CheckResult r = MergeClusterRun(in);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_EQ(r.data["dead_ranks"], json::array({1}));
  EXPECT_EQ(r.data["stalled_ranks"], json::array({0}));
  EXPECT_NE(r.reason.en.find("rank 1 (node 1)"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("4 MiB"), std::string::npos) << r.reason.en;
  EXPECT_EQ(r.reason.en.find("rank 0"), std::string::npos) << "the survivor is not to blame: " << r.reason.en;
}

// Both ranks killed at their timeout: rank 1 never entered the 4 MiB all-reduce, rank 0 did and
// hung inside it waiting. Only rank 1 is "hung"; rank 0 is "waiting" on it and not in the verdict.
TEST(ClusterMerge, TheRankThatNeverEnteredIsBlamedNotTheOnesWaitingForIt) {
  MergeInput in;
  in.world_size = 3;
  json waiting0 = Block(0, 3, "a", 1), waiting2 = Block(2, 3, "c", 1), laggard = Block(1, 3, "b", 1);
  for (json* b : {&waiting0, &waiting2, &laggard}) {
    (*b)["sweep"]["sizes"].erase(2);
    b->erase("node_sweep");
  }
  waiting0["child"] = {{"ended", "hung"}, {"describe", "no result after 10 s; stopped"}, {"phase", "sweep"}, {"running_bytes", 4194304}};
  waiting2["child"] = waiting0["child"];
  laggard["child"] = {{"ended", "hung"}, {"describe", "no result after 10 s; stopped"}, {"phase", "sweep"}};
  in.blocks = {waiting0, laggard, waiting2};
  CheckResult r = MergeClusterRun(in);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_EQ(r.data["hung_ranks"], json::array({1}));
  EXPECT_EQ(r.data["waiting_ranks"], json::array({0, 2}));
  EXPECT_NE(r.reason.en.find("rank 1 (node 1): hung"), std::string::npos) << r.reason.en;
  EXPECT_EQ(r.reason.en.find("rank 0"), std::string::npos) << r.reason.en;

  // All equally far (a hang inside NCCL): nothing tells them apart, all stay hung.
  laggard["child"]["running_bytes"] = 4194304;
  in.blocks = {waiting0, laggard, waiting2};
  CheckResult inside = MergeClusterRun(in);
  EXPECT_EQ(inside.data["hung_ranks"], json::array({0, 1, 2}));
  EXPECT_EQ(inside.data["waiting_ranks"], json::array());
}

TEST(ClusterMerge, MissingRankWhenTheGatherFailed) {
  MergeInput in;
  in.world_size = 3;
  in.blocks = {Block(0, 3, "a", 1)};
  in.gather_error = "no answer from every rank within 90 s";
  CheckResult r = MergeClusterRun(in);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_EQ(r.data["missing_ranks"], json::array({1, 2}));
  EXPECT_NE(r.reason.en.find("no answer"), std::string::npos);
}

TEST(ClusterMerge, WrongSumOnOneNode) {
  MergeInput in;
  in.world_size = 2;
  json bad = Block(1, 2, "b", 1);
  bad["sweep"]["sizes"] = Sizes(1.0, 2, false);
  bad["sweep"]["wrong_sum"] = true;
  in.blocks = {Block(0, 2, "a", 1), bad};
  CheckResult r = MergeClusterRun(in);
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_EQ(r.data["wrong_sum_ranks"], json::array({1}));
  EXPECT_EQ(r.data["sizes"][0]["correct"], false);
  EXPECT_NE(r.hint.en.find("corrupted"), std::string::npos);
}

TEST(ClusterMerge, SocketsDespiteInfinibandAndNoPeermem) {
  MergeInput in;
  in.world_size = 2;
  json a = Block(0, 2, "a", 1), b = Block(1, 2, "b", 1);
  for (json* x : {&a, &b}) {
    (*x)["transport"] = {{"net", "Socket"}, {"gdrdma", false}};
    (*x)["peermem"] = false;
    (*x)["nccl_env"] = {{"NCCL_IB_HCA", "mlx5_9"}};
  }
  in.blocks = {a, b};
  CheckResult r = MergeClusterRun(in);
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("TCP sockets"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.hint.en.find("NCCL_IB_HCA (now: mlx5_9)"), std::string::npos) << r.hint.en;
  EXPECT_NE(r.hint.en.find("nvidia_peermem"), std::string::npos) << r.hint.en;
}

TEST(ClusterMerge, AllSkippedIsASkip) {
  MergeInput in;
  in.world_size = 2;
  json skip = {{"child", {{"ended", "skipped"}}}, {"reason", {{"ru", "нет GPU"}, {"en", "no GPU"}}}, {"node_key", "a"}};
  in.blocks = {skip, skip};
  EXPECT_EQ(MergeClusterRun(in).outcome, Outcome::Skip);
}

}  // namespace
}  // namespace labcheck::cluster

#include "cluster/rank_run.h"

#include <csignal>

#include <gtest/gtest.h>

namespace labcheck::cluster {
namespace {

using nlohmann::json;

RankFacts Facts() {
  RankFacts f;
  f.rank = 1;
  f.world_size = 2;
  f.node_key = "abc";
  return f;
}

const char* kProgress = R"({"outcome":"ok","phase":"sweep","gpu_name":"Sim","sweep":{"sizes":[{"bytes":1048576,"time_ms":1.0,"correct":true}],"running_bytes":2097152}})";

TEST(RankBlock, ChildKilledKeepsItsProgressAndSize) {
  ChildJobOutcome killed;
  killed.process.started = true;
  killed.process.term_signal = SIGKILL;
  killed.result = Status::Error("no output");
  json b = RankBlock(Facts(), killed, kProgress, "", 20);
  EXPECT_EQ(b["child"]["ended"], "died");
  EXPECT_EQ(b["child"]["signal"], SIGKILL);
  EXPECT_EQ(b["child"]["phase"], "sweep");
  EXPECT_EQ(b["child"]["running_bytes"], 2097152);
  EXPECT_EQ(b["sweep"]["sizes"].size(), 1u);
  EXPECT_EQ(b["gpu_name"], "Sim");
  EXPECT_EQ(b["node_key"], "abc");
}

TEST(RankBlock, ChildTimedOutIsHung) {
  ChildJobOutcome hung;
  hung.process.started = true;
  hung.process.timed_out = true;
  hung.result = Status::Error("timed out");
  json b = RankBlock(Facts(), hung, "", "", 20);
  EXPECT_EQ(b["child"]["ended"], "hung");
  EXPECT_EQ(b["child"]["phase"], "not started");
  EXPECT_NE(b["child"]["describe"].get<std::string>().find("20 s"), std::string::npos);
}

TEST(RankBlock, TransportFromNcclsLog) {
  ChildJobOutcome ok;
  ok.process.started = true;
  ok.process.exit_code = 0;
  ok.result = json{{"outcome", "ok"}, {"phase", "done"}};
  const std::string log =
      "host:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
      "host:1:2 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [receive] via NET/IB/1/GDRDMA\n";
  json b = RankBlock(Facts(), ok, "", log, 20);
  EXPECT_EQ(b["child"]["ended"], "ok");
  EXPECT_EQ(b["transport"]["net"], "IB");
  EXPECT_EQ(b["transport"]["gdrdma"], true);
  json s = RankBlock(Facts(), ok, "", "x NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n", 20);
  EXPECT_EQ(s["transport"]["net"], "Socket");
  EXPECT_EQ(s["transport"]["gdrdma"], false);
}

TEST(RankBlock, FitsTheGatherBlock) {
  ChildJobOutcome ok;
  ok.process.started = true;
  json sizes = json::array();
  for (int i = 0; i < 12; ++i)
    sizes.push_back({{"bytes", 1ull << (20 + i)}, {"time_ms", 1.2345678}, {"algbw_gbps", 12.345678}, {"busbw_gbps", 12.345678}, {"correct", true}});
  ok.result = json{{"outcome", "ok"}, {"phase", "done"}, {"sweep", {{"sizes", sizes}}}, {"node_sweep", {{"sizes", sizes}}},
                   {"error", std::string(5000, 'x')}};
  RankFacts f = Facts();
  for (int i = 0; i < 16; ++i) f.nics.ib_ports.push_back({"mlx5_" + std::to_string(i), 1, 400, "ACTIVE", "InfiniBand"});
  EXPECT_LT(RankBlock(f, ok, "", std::string(100000, 'y'), 20).dump().size(), 16u * 1024);
}

}  // namespace
}  // namespace labcheck::cluster

// All-reduce arithmetic (nccl-tests' busbw), the order-independent exact sum, and the watchdog and
// retry with a child that really hangs.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

#include "gpu/collective/allreduce_attempts.h"
#include "gpu/collective/allreduce_json.h"
#include "gpu/collective/allreduce_math.h"
#include "../platform/temp_tree.h"

namespace labcheck::gpu {
namespace {

TEST(AllReduceMath, BusBandwidthAsNcclTestsDefinesIt) {
  EXPECT_DOUBLE_EQ(AllReduceBusFactor(2), 1.0);
  EXPECT_DOUBLE_EQ(AllReduceBusFactor(4), 1.5);
  EXPECT_DOUBLE_EQ(AllReduceBusFactor(8), 1.75);
  EXPECT_DOUBLE_EQ(AllReduceBusFactor(1), 0.0);
  // The seed's ddp_check.py: 256 MiB in 20 ms on 4 GPUs.
  const size_t bytes = 256u << 20;
  EXPECT_NEAR(AlgorithmBandwidthGbps(bytes, 20), 13.42, 0.01);
  ASSERT_TRUE(BusBandwidthGbps(bytes, 20, 4).has_value());
  EXPECT_NEAR(*BusBandwidthGbps(bytes, 20, 4), 13.42 * 1.5, 0.02);
  EXPECT_FALSE(BusBandwidthGbps(bytes, 20, 1).has_value());  // one GPU: no meaning, not zero
}

// nccl-tests' all_reduce_perf: host time per iteration, averaged over its processes, then the
// same algbw and busbw arithmetic.
TEST(AllReduceMath, NcclTestsFiguresAverageTheProcessesHostClocks) {
  const size_t bytes = 256u << 20;
  std::optional<NcclTestsFigures> f = NcclTestsFiguresFor(bytes, {10000.0, 30000.0}, 4);
  ASSERT_TRUE(f.has_value());
  EXPECT_DOUBLE_EQ(f->time_us, 20000.0);
  EXPECT_NEAR(f->algbw_gbps, 13.42, 0.01);  // as 256 MiB in 20 ms above
  ASSERT_TRUE(f->busbw_gbps.has_value());
  EXPECT_NEAR(*f->busbw_gbps, 13.42 * 1.5, 0.02);
  EXPECT_FALSE(NcclTestsFiguresFor(bytes, {}, 4).has_value());
  EXPECT_FALSE(NcclTestsFiguresFor(bytes, {10000.0, 0.0}, 4).has_value());  // a process without its clock
  EXPECT_FALSE(NcclTestsFiguresFor(bytes, {10000.0}, 1)->busbw_gbps.has_value());
}

// One process driving every rank prints the nccl-tests keys from its own clock; a rank of many
// prints only its clock (the merge averages).
TEST(AllReduceMath, SizesJsonCarriesBothTimings) {
  SizeResult s;
  s.bytes = 1u << 20;
  s.time_ms = 0.1;
  s.algbw_gbps = AlgorithmBandwidthGbps(s.bytes, s.time_ms);
  s.busbw_gbps = BusBandwidthGbps(s.bytes, s.time_ms, 2);
  s.host_time_us = 250;
  s.correct = true;
  nlohmann::json one_node = SizesJson({s}, true, 2)[0];
  EXPECT_DOUBLE_EQ(one_node["time_ms"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(one_node["host_time_us"].get<double>(), 250);
  EXPECT_DOUBLE_EQ(one_node["time_us_nccl_tests"].get<double>(), 250);
  EXPECT_NEAR(one_node["busbw_gbps_nccl_tests"].get<double>(), (1u << 20) / 250e-6 / 1e9, 1e-9);
  nlohmann::json rank = SizesJson({s}, false, 2)[0];
  EXPECT_DOUBLE_EQ(rank["host_time_us"].get<double>(), 250);
  EXPECT_FALSE(rank.contains("busbw_gbps_nccl_tests"));
}

TEST(AllReduceMath, SizesDoubleFromOneMebibyte) {
  std::vector<size_t> sizes = AllReduceSizes(1u << 20, 256u << 20);
  ASSERT_EQ(sizes.size(), 9u);
  EXPECT_EQ(sizes.front(), 1u << 20);
  EXPECT_EQ(sizes.back(), 256u << 20);
  EXPECT_EQ(AllReduceSizes(1u << 20, 1u << 30).size(), 11u);
}

TEST(AllReduceMath, ExpectedSumIsExactInAnyOrder) {
  std::mt19937 shuffle(7);
  for (int world : {1, 2, 3, 8}) {
    for (size_t i : {size_t{0}, size_t{1}, size_t{12345}, size_t{(1u << 28) - 1}}) {
      std::vector<float> parts;
      for (int r = 0; r < world; ++r) parts.push_back(AllReduceInput(r, i));
      for (int trial = 0; trial < 5; ++trial) {
        std::shuffle(parts.begin(), parts.end(), shuffle);
        float sum = 0;
        for (float p : parts) sum += p;
        EXPECT_EQ(sum, AllReduceExpected(world, i));
      }
    }
  }
  // Inputs are small integers, and not all the same (a constant would hide a missing rank).
  std::set<float> seen;
  for (size_t i = 0; i < 1000; ++i) {
    float v = AllReduceInput(1, i);
    EXPECT_EQ(v, static_cast<float>(static_cast<int>(v)));
    EXPECT_LE(std::fabs(v), 8.0f);
    seen.insert(v);
  }
  EXPECT_GT(seen.size(), 10u);
  EXPECT_NE(AllReduceInput(0, 5), AllReduceInput(1, 5) + 100);  // ranks differ somewhere
  int differing = 0;
  for (size_t i = 0; i < 100; ++i) differing += AllReduceInput(0, i) != AllReduceInput(1, i);
  EXPECT_GT(differing, 50);
}

TEST(AllReduceMath, PatternRepeatsOnlyAtItsPrimePeriod) {
  // The host makes one period of inputs and expected sums: element i and i + period must agree.
  for (size_t i : {size_t{0}, size_t{77}, kAllReducePeriod - 1})
    for (int r = 0; r < 4; ++r) EXPECT_EQ(AllReduceInput(r, i), AllReduceInput(r, i + 3 * kAllReducePeriod));
  // A piece moved by a power of two (how NCCL splits buffers) must not match itself there.
  for (size_t shift = 1u << 10; shift <= (1u << 28); shift <<= 3) {
    int same = 0;
    for (size_t i = 0; i < 2000; ++i) same += AllReduceInput(2, i * 977) == AllReduceInput(2, i * 977 + shift);
    EXPECT_LT(same, 400) << "shift " << shift;  // small integers from 17 values: about 1 in 17 by chance
  }
}

// A stand-in for `lab_check internal-child gpu-allreduce`: it hangs like a broken P2P path unless
// NCCL_P2P_DISABLE=1, then answers as the real job does. It writes an NCCL-style log either way.
constexpr const char* kFakeChild = R"(#!/bin/sh
if [ "$NCCL_P2P_DISABLE" = "1" ]; then
  echo 'h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct' > "$NCCL_DEBUG_FILE"
  printf '\nLABCHECK_CHILD_RESULT {"outcome":"ok","ranks":2,"sweep":{"sizes":[{"bytes":1048576,"time_ms":0.1,"algbw_gbps":10.5,"busbw_gbps":10.5,"correct":true}],"hung":false,"nccl_error":"","wrong_sum":false}}\n'
  exit 0
fi
echo 'h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read' > "$NCCL_DEBUG_FILE"
exec sleep 120
)";

TEST(AllReduceRetry, AHangingChildIsKilledAndRetriedWithP2PDisabled) {
  testing::TempTree tree;
  std::string script = tree.Write("fake_lab_check", kFakeChild).string();
  chmod(script.c_str(), 0755);
  std::filesystem::create_directories(tree.root() / "logs");
  int launches = 0;
  auto started = std::chrono::steady_clock::now();
  AllReduceRun run = RunAllReduceWithRetry(
      [&](const EnvList& env) {
        ++launches;
        return RunChildJob(script, "gpu-allreduce", {}, 2.0, CancelToken::Never(), env);
      },
      (tree.root() / "logs").string());
  double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(launches, 2);
  EXPECT_LT(elapsed_s, 30);  // the watchdog, not sleep 120, ended the first attempt
  EXPECT_TRUE(run.first.hung);
  EXPECT_FALSE(run.first.ok());
  EXPECT_EQ(TransportSummary(run.first.log), "P2P");  // what NCCL said before it stalled
  ASSERT_TRUE(run.retry.has_value());
  EXPECT_TRUE(run.retry->ok()) << run.retry->process_error;
  EXPECT_TRUE(run.retry->p2p_disabled);
  EXPECT_EQ(TransportSummary(run.retry->log), "SHM");
  nlohmann::json report = run.retry->ToJson();
  EXPECT_EQ(report["transport"], "SHM");
  EXPECT_EQ(report["sizes"][0]["busbw_gbps"], 10.5);
  EXPECT_EQ(run.first.ToJson()["hung"], true);
}

ChildJobOutcome Answer(nlohmann::json payload) {
  ChildJobOutcome outcome;
  outcome.process.started = true;
  outcome.process.exit_code = 0;
  outcome.result = std::move(payload);
  return outcome;
}

TEST(AllReduceRetry, AWrongSumIsRetriedAndAGoodRunIsNot) {
  testing::TempTree tree;
  int launches = 0;
  nlohmann::json wrong = {{"outcome", "ok"}, {"ranks", 2}, {"sweep", {{"sizes", nlohmann::json::array()}, {"wrong_sum", true}}}};
  AllReduceRun bad = RunAllReduceWithRetry([&](const EnvList&) { ++launches; return Answer(wrong); }, tree.root().string());
  EXPECT_EQ(launches, 2);
  EXPECT_TRUE(bad.first.wrong_sum);
  ASSERT_TRUE(bad.retry);

  launches = 0;
  nlohmann::json good = {{"outcome", "ok"}, {"ranks", 2}, {"sweep", {{"sizes", nlohmann::json::array()}}}};
  AllReduceRun fine = RunAllReduceWithRetry([&](const EnvList& env) {
    ++launches;
    bool debug = std::find(env.begin(), env.end(), std::pair<std::string, std::string>{"NCCL_DEBUG", "INFO"}) != env.end();
    EXPECT_TRUE(debug);
    return Answer(good);
  }, tree.root().string());
  EXPECT_EQ(launches, 1);
  EXPECT_TRUE(fine.first.ok());
  EXPECT_FALSE(fine.retry);
  EXPECT_FALSE(fine.comparison);

  // A full check compares with NCCL_P2P_DISABLE=1 after a good first attempt, and says so in the
  // environment; not for one rank (nothing crosses a link) and not after a failure (that is the retry).
  std::vector<EnvList> seen;
  auto record = [&](const EnvList& env) { seen.push_back(env); return Answer(good); };
  AllReduceRun compared = RunAllReduceWithRetry(record, tree.root().string(), record);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(std::count(seen[1].begin(), seen[1].end(), std::pair<std::string, std::string>{"NCCL_P2P_DISABLE", "1"}), 1);
  EXPECT_EQ(std::count(seen[0].begin(), seen[0].end(), std::pair<std::string, std::string>{"NCCL_P2P_DISABLE", "1"}), 0);
  ASSERT_TRUE(compared.comparison);
  EXPECT_TRUE(compared.comparison->p2p_disabled);
  EXPECT_FALSE(compared.retry);
  launches = 0;
  nlohmann::json one_rank = {{"outcome", "ok"}, {"ranks", 1}, {"sweep", {{"sizes", nlohmann::json::array()}}}};
  auto single_rank = [&](const EnvList&) { ++launches; return Answer(one_rank); };
  AllReduceRun single = RunAllReduceWithRetry(single_rank, tree.root().string(), single_rank);
  EXPECT_EQ(launches, 1);
  EXPECT_FALSE(single.comparison);
  launches = 0;
  auto failing = [&](const EnvList&) { ++launches; return Answer(wrong); };
  AllReduceRun failed = RunAllReduceWithRetry(failing, tree.root().string(), failing);
  EXPECT_EQ(launches, 2);
  EXPECT_TRUE(failed.retry);
  EXPECT_FALSE(failed.comparison);

  launches = 0;
  AllReduceRun skipped = RunAllReduceWithRetry([&](const EnvList&) { ++launches; return Answer({{"outcome", "skip"}}); },
                                               tree.root().string());
  EXPECT_EQ(launches, 1);
  EXPECT_TRUE(skipped.skipped.has_value());
}

}  // namespace
}  // namespace labcheck::gpu

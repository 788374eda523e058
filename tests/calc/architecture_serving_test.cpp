// serve and kv on the published configs of tests/calc/configs: what vLLM keeps per request and per
// rank for MLA, sliding windows, chunked attention and expert parallelism, worked by hand, and one
// MLA figure against a published vLLM log.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "calc/byte_units.h"
#include "calc/calc_constants.h"
#include "calc/kv_cache.h"
#include "calc/serving.h"
#include "config_copies.h"

namespace labcheck::calc {
namespace {

// The long-context serving settings of the window and chunk rules: one max_model_len of 131,072
// tokens, 256 sequences, `batched_tokens` per step, on `gpus` cards of 80 GiB.
ServeSettings LongContextServing(int gpus, int64_t batched_tokens) {
  ServeSettings s;
  s.gpus = gpus;
  s.gpu_memory_gib = 80;
  s.max_model_len = 131072;
  s.max_num_batched_tokens = batched_tokens;
  s.max_num_seqs = 256;
  return s;
}

// Whole 16-token blocks that `gib` (as vLLM prints it, to 0.01 GiB) holds at `bytes_per_token`:
// the lowest and highest count the printed figure allows.
std::pair<int64_t, int64_t> TokensInPrintedGiB(double gib, double bytes_per_token) {
  auto tokens = [&](double g) { return static_cast<int64_t>(g * kBytesPerGiB / (16 * bytes_per_token)) * 16; };
  return {tokens(gib - 0.005), tokens(gib + 0.005)};
}

TEST(ArchitectureFamiliesTest, MlaLatentMatchesAPublishedVllmLog) {
  // vLLM PR #20665 (https://github.com/vllm-project/vllm/pull/20665): `vllm serve
  // deepseek-ai/DeepSeek-V2-Lite --max-model-len=1024 --enforce-eager --tensor-parallel-size=2
  // --pipeline-parallel-size=2` on L4s logs "Available KV cache memory: 12.13 GiB" on the ranks of
  // the first stage, 11.33 GiB on the second, and "GPU KV cache size: 807,792 tokens" (the fewer
  // blocks of the two stages). vLLM's get_pp_indices gives the first stage 14 of the 27 layers.
  // At tp 2 an MLA rank still holds the whole latent: 14 x 576 x 2 = 16,128 bytes per token.
  Architecture first_stage = LoadPublishedConfig("deepseek-v2-lite");
  first_stage.layers = 14;
  const double per_token = ComputeKvCache(first_stage, {1, 1, 2, 2}).bytes_per_token_per_gpu;
  EXPECT_DOUBLE_EQ(per_token, 16'128);
  const auto [low, high] = TokensInPrintedGiB(12.13, per_token);
  EXPECT_LE(low, 807'792);
  EXPECT_GE(high, 807'792);
  // The second stage (13 layers, 11.33 GiB) holds more, so the first one sets the figure.
  Architecture second_stage = first_stage;
  second_stage.layers = 13;
  EXPECT_GT(TokensInPrintedGiB(11.33, ComputeKvCache(second_stage, {1, 1, 2, 2}).bytes_per_token_per_gpu).first, 807'792);
  // K and V per head split by TP would be 14 x 2 x 8 x 192 x 2 bytes: ten times fewer tokens.
  EXPECT_LT(TokensInPrintedGiB(12.13, 14.0 * 2 * 8 * 192 * 2).second, 807'792 / 5);
}

TEST(ArchitectureFamiliesTest, ServeKeepsTheMlaLatentWholeOnEveryRank) {
  // KV tokens = room per GPU / 31,104 bytes (27 layers x 576 values x 2 bytes) at every tp, in
  // whole blocks of 16: a wider tp frees room only through the weights.
  ServeSettings s;
  s.gpus = 4;
  s.gpu_memory_gib = 32;
  const ServePlan plan = PlanServing(PublishedModelInput("deepseek-v2-lite"), s, CalcConstants::Builtin());
  for (const TpOption& o : plan.options) {
    if (o.kv_room_per_gpu <= 0) continue;
    ASSERT_TRUE(o.kv_tokens.has_value());
    EXPECT_EQ(*o.kv_tokens, static_cast<int64_t>(o.kv_room_per_gpu / 31'104) / 16 * 16) << "tp " << o.tp;
  }
}

TEST(ArchitectureFamiliesTest, ServeReservesAWindowPlusOneChunkPerRequest) {
  // gpt-oss-20b at max_model_len 131,072 with 16,384 batched tokens: a full layer reserves 131,072
  // tokens; a window layer min(128 - 1 + 16,384, 131,072) = 16,511 -> 1,032 blocks + 1 = 16,528
  // tokens (vLLM 0.11, SlidingWindowSpec.max_memory_usage_bytes), not its 128. At 2,048 bytes per
  // layer and token: 12 x 2,048 x (131,072 + 16,528) = 3,627,417,600 bytes per request, against
  // 3,224,371,200 if the window layers held only their window.
  ServeSettings s = LongContextServing(1, 16384);
  s.quant = ServeQuant::Checkpoint;
  const ServePlan plan = PlanServing(PublishedModelInput("gpt-oss-20b"), s, CalcConstants::Builtin());
  const TpOption& o = plan.options.front();
  ASSERT_TRUE(o.max_concurrency.has_value());
  EXPECT_EQ(*o.max_concurrency, static_cast<int64_t>(o.kv_room_per_gpu / 3'627'417'600.0));
  EXPECT_LT(*o.max_concurrency, static_cast<int64_t>(o.kv_room_per_gpu / 3'224'371'200.0));  // the rule matters here
  // Checkpoint weights as stored: the experts in MXFP4.
  EXPECT_DOUBLE_EQ(plan.weights_bytes, ServingWeightBytes(PublishedModelInput("gpt-oss-20b"), ServeQuant::Checkpoint, CalcConstants::Builtin()));
}

TEST(ArchitectureFamiliesTest, ServeReservesAChunkPlusOneBatchPerRequest) {
  // Llama 4 Scout at max_model_len 131,072 with 8,192 batched tokens, tp 4 (2 KV heads per GPU:
  // 1,024 bytes per layer and token): a full layer reserves 131,072 tokens, a chunked one
  // min(8,192 + 8,192, 131,072) = 16,384 (ChunkedLocalAttentionSpec: no extra block). Per request
  // 1,024 x (12 x 131,072 + 36 x 16,384) = 2,214,592,512 bytes per GPU.
  const ServeSettings s = LongContextServing(4, 8192);
  const ServePlan plan = PlanServing(PublishedModelInput("llama-4-scout-17b-16e-instruct"), s, CalcConstants::Builtin());
  const TpOption& o = plan.options[3];
  ASSERT_EQ(o.tp, 4);
  ASSERT_TRUE(o.max_concurrency.has_value());
  EXPECT_EQ(*o.max_concurrency, static_cast<int64_t>(o.kv_room_per_gpu / 2'214'592'512.0));
  EXPECT_NE(plan.vllm_command.find("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 vllm serve"), std::string::npos);
}

TEST(ArchitectureFamiliesTest, ExpertParallelShardsExpertsOverTpTimesDp) {
  // DeepSeek-V2-Lite in BF16: routed experts 26 layers x 64 x 8,650,752 = 14,394,851,328 parameters,
  // 28,789,702,656 bytes. On 4 GPUs with --data-parallel-size 2 --enable-expert-parallel, tp 1: the
  // rest whole on each GPU and half the experts; tp 2: half the rest and a quarter of the experts.
  const ModelInput lite = PublishedModelInput("deepseek-v2-lite");
  ServeSettings s;
  s.gpus = 4;
  s.gpu_memory_gib = 80;
  s.max_model_len = 4096;
  s.data_parallel = 2;
  s.expert_parallel = true;
  const ServePlan ep = PlanServing(lite, s, CalcConstants::Builtin());
  const double experts = 28'789'702'656.0, all = ServingWeightBytes(lite, ServeQuant::Bf16, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(ep.expert_weights_bytes, experts);
  ASSERT_EQ(ep.options.size(), 2u);  // tp 1 and 2: each of the 2 replicas takes tp GPUs
  EXPECT_DOUBLE_EQ(ep.options[0].weights_per_gpu, (all - experts) + experts / 2);
  EXPECT_DOUBLE_EQ(ep.options[1].weights_per_gpu, (all - experts) / 2 + experts / 4);
  EXPECT_NE(ep.vllm_command.find("--data-parallel-size 2 --enable-expert-parallel"), std::string::npos) << ep.vllm_command;
  // Data parallelism alone replicates the whole model split by tp.
  s.expert_parallel = false;
  EXPECT_DOUBLE_EQ(PlanServing(lite, s, CalcConstants::Builtin()).options[1].weights_per_gpu, all / 2);
}

}  // namespace
}  // namespace labcheck::calc

// serve and kv on the published configs of tests/calc/configs: what vLLM keeps per request and per
// rank for MLA, sliding windows, chunked attention and expert parallelism, worked by hand, and one
// MLA figure against a published vLLM log.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "calc/byte_units.h"
#include "calc/calc_constants.h"
#include "calc/kv_cache.h"
#include "calc/serving.h"
#include "calc/vllm_hybrid_pages.h"
#include "calc/vllm_profile.h"
#include "calc_cli.h"
#include "config_copies.h"
#include "core/regex_instances.h"  // <regex>, its code generated once

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

TEST(ArchitectureFamiliesTest, MarlinPadsMxfp4ExpertsOnCardsBeforeHopper) {
  // gpt-oss-120b at tp 4: each expert's intermediate size 2,880 / 4 = 720 per rank, rounded up to
  // 768 for vLLM's Marlin MoE kernel, the hidden size 2,880 to 3,072 (mxfp4.py create_weights):
  // 768 x 3,072 / (720 x 2,880) = 1.1378 on an A100 (compute capability 8.0); none on an H100.
  const ModelInput model = PublishedModelInput("gpt-oss-120b");
  ASSERT_TRUE(model.arch.has_value());
  ServeSettings s;
  s.quant = ServeQuant::Checkpoint;
  s.gpu_cc_major = 8;
  EXPECT_NEAR(MarlinMxfp4ExpertPadding(*model.arch, s, 4), 768.0 * 3072 / (720.0 * 2880), 1e-12);
  // Expert parallelism keeps experts whole: 2,880 -> 2,944 and 2,880 -> 3,072.
  EXPECT_NEAR(MarlinMxfp4ExpertPadding(*model.arch, s, 1), 2944.0 * 3072 / (2880.0 * 2880), 1e-12);
  s.gpu_cc_major = 9;
  EXPECT_EQ(MarlinMxfp4ExpertPadding(*model.arch, s, 4), 1.0);
  s.gpu_cc_major = 0;  // card not known: no padding assumed
  EXPECT_EQ(MarlinMxfp4ExpertPadding(*model.arch, s, 4), 1.0);
  s.gpu_cc_major = 8;
  s.quant = ServeQuant::Bf16;  // served in BF16: not the MXFP4 kernel
  EXPECT_EQ(MarlinMxfp4ExpertPadding(*model.arch, s, 4), 1.0);
  // Through the command: the padded experts take room on an A100 and the assumption says why.
  const testing::CliRun a100 = testing::RunCalc({"serve", PublishedConfigDir() + "gpt-oss-120b/config.json", "--gpus", "4", "--gpu", "a100-sxm-80gb"}, Lang::En);
  ASSERT_EQ(a100.exit_code, 0) << a100.err;
  EXPECT_NE(a100.out.find("Marlin kernel"), std::string::npos) << a100.out;
  const testing::CliRun h100 = testing::RunCalc({"serve", PublishedConfigDir() + "gpt-oss-120b/config.json", "--gpus", "4", "--gpu", "h100-sxm"}, Lang::En);
  ASSERT_EQ(h100.exit_code, 0) << h100.err;
  EXPECT_EQ(h100.out.find("Marlin kernel"), std::string::npos) << h100.out;
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

TEST(ArchitectureFamiliesTest, HybridStatePagesOfQwen3NextByHand) {
  // Qwen3-Next at tp 4: one attention layer keeps max(1, 2 / 4) KV head x 256 x 2 x 2 bytes = 1,024
  // bytes per token; a Gated DeltaNet state is 1,097,728 / 4 = 274,432 bytes. vLLM raises the block
  // to 16 x cdiv(274,432, 16 x 1,024) = 272 tokens, a page of 278,528 bytes (the state padded by
  // 1.49 %). 12 attention and 36 state layers: groups of 12, one attention group and three state ones.
  const Architecture arch = LoadPublishedConfig("qwen3-next-80b-a3b-thinking");
  const KvLayerSlots slots = HybridKvLayerSlots(arch, true);
  EXPECT_EQ(slots.group_size, 12);
  EXPECT_EQ(slots.state_groups, 3);
  EXPECT_EQ(slots.groups, 4);
  const std::optional<HybridPages> pages = VllmHybridPages(arch, 4, 2, slots, 16);
  ASSERT_TRUE(pages.has_value());
  EXPECT_EQ(pages->block_tokens, 272);
  EXPECT_DOUBLE_EQ(pages->page_bytes, 278'528);
  EXPECT_DOUBLE_EQ(pages->state_bytes, 274'432);
  EXPECT_NEAR(pages->state_padding_percent(), 1.49, 0.005);
  // 10 GiB: 10,737,418,240 / 278,528 = 38,550 pages / 12 slots per group = 3,212 blocks; vLLM prints
  // 3,212 / 4 groups = 803 x 272 = 218,416 tokens, and at 262,144 tokens a request takes
  // cdiv(262,144, 272) = 964 attention blocks + 3 state blocks: 3,212 / 967 = 3.32x.
  const HybridPool pool = VllmHybridPool(*pages, 10.0 * kBytesPerGiB, 262'144);
  EXPECT_EQ(pool.num_blocks, 3'212);
  EXPECT_EQ(pool.tokens, 218'416);
  EXPECT_DOUBLE_EQ(pool.concurrency, 3'212.0 / 967);
  // Room for one request: 12 x 964 attention pages + 36 state pages, 11,604 x 278,528 bytes.
  EXPECT_DOUBLE_EQ(HybridRequestBytes(*pages, 262'144), 11'604.0 * 278'528);
  // Dividing the room by 12 attention layers x 1,024 bytes in blocks of 16 would claim 873,808 tokens:
  // the pool's state groups take three quarters of it.
  EXPECT_GT(static_cast<int64_t>(10.0 * kBytesPerGiB / (12 * 1'024)), 3 * pool.tokens);
}

TEST(ArchitectureFamiliesTest, HybridPoolMatchesTheQwen3NextLogOfIssue26646) {
  // vllm-project/vllm#26646 (2025-10-11) quotes a Qwen3-Next-80B start-up: "GPU KV cache size: 90,048
  // tokens", "Maximum concurrency for 215,040 tokens per request: 1.66x"; card, TP and memory are not
  // in the excerpt. With an FP8 KV cache at TP 1 an attention layer keeps 2 x 2 x 256 x 1 = 1,024
  // bytes per token and the 1,097,728-byte state needs a block of 1,072 tokens; 339 blocks give both
  // figures: 339 // 4 x 1,072 = 90,048 and 339 / (cdiv(215,040, 1,072) + 3) = 339 / 204 = 1.66.
  const Architecture arch = LoadPublishedConfig("qwen3-next-80b-a3b-thinking");
  const KvLayerSlots slots = HybridKvLayerSlots(arch, true);
  const std::optional<HybridPages> pages = VllmHybridPages(arch, 1, 1, slots, 16);
  ASSERT_TRUE(pages.has_value());
  EXPECT_EQ(pages->block_tokens, 1'072);
  const HybridPool pool = VllmHybridPool(*pages, 339.5 * 12 * pages->page_bytes, 215'040);
  EXPECT_EQ(pool.num_blocks, 339);
  EXPECT_EQ(pool.tokens, 90'048);
  EXPECT_NEAR(pool.concurrency, 1.66, 0.005);
  // The printed tokens are whole blocks; no BF16 tensor-parallel degree's block (544, 544, 272, 144)
  // divides 90,048, so the log was not a BF16 KV cache.
  for (int tp : {1, 2, 4, 8}) EXPECT_NE(90'048 % VllmHybridPages(arch, tp, 2, slots, 16)->block_tokens, 0) << "tp " << tp;
}

TEST(ArchitectureFamiliesTest, ServeReportsTheHybridPoolVllmPrints) {
  // Nemotron 3 Nano on one 80 GiB card at 131,072 tokens: its SSM state is float32
  // (mamba_ssm_cache_dtype), 2,134,016 bytes a layer; an attention layer 2 x 2 x 128 x 2 = 1,024
  // bytes per token, so the block is 16 x cdiv(2,134,016, 16,384) = 2,096 tokens. 6 attention and 23
  // state layers: groups of 6, one attention group, four state groups (one padding slot).
  ServeSettings s = LongContextServing(1, 8192);
  const ServePlan plan = PlanServing(PublishedModelInput("nemotron-3-nano-30b-a3b"), s, CalcConstants::Builtin());
  EXPECT_EQ(plan.kv_slots.padding(), 1);
  const TpOption& o = plan.options.front();
  ASSERT_TRUE(o.hybrid_pages.has_value());
  EXPECT_EQ(o.hybrid_pages->block_tokens, 2'096);
  EXPECT_EQ(o.hybrid_pages->groups(), 5);
  const double page = 2'096.0 * 1'024;
  const int64_t blocks = static_cast<int64_t>(std::floor(std::floor(o.kv_room_per_gpu / page) / 6));
  ASSERT_TRUE(o.kv_tokens.has_value() && o.vllm_concurrency.has_value());
  EXPECT_EQ(*o.kv_tokens, blocks / 5 * 2'096);
  // A request: cdiv(131,072, 2,096) = 63 attention blocks and 4 state blocks.
  EXPECT_DOUBLE_EQ(*o.vllm_concurrency, static_cast<double>(blocks) / 67);
  EXPECT_EQ(o.fits, o.kv_room_per_gpu >= (6.0 * 63 + 23) * page);
  EXPECT_TRUE(o.fits);
  // The figures hold without prefix caching, so the command turns it off.
  EXPECT_NE(plan.vllm_command.find("--no-enable-prefix-caching"), std::string::npos) << plan.vllm_command;
  // A dense model keeps the 16-token blocks and no such flag.
  const ServePlan dense = PlanServing(PublishedModelInput("codellama-7b"), s, CalcConstants::Builtin());
  EXPECT_FALSE(dense.options.front().hybrid_pages.has_value());
  EXPECT_EQ(dense.vllm_command.find("prefix-caching"), std::string::npos);
}

// The line a user greps vLLM's log for is quoted as vLLM writes it: counts with thousands commas.
TEST(ArchitectureFamiliesTest, ServeQuotesTheHybridPoolAsVllmWritesIt) {
  const std::string config = PublishedConfigDir() + "nemotron-3-nano-30b-a3b/config.json";
  const testing::CliRun run = testing::RunCalc({"serve", config, "--gpus", "1", "--gpu-mem", "80", "--max-model-len", "131072"}, Lang::En);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string out = std::regex_replace(run.out, std::regex("\\s+"), " ");  // notes wrap on a terminal
  EXPECT_NE(out.find("pages of one size (the attention block raised"), std::string::npos) << out;
  EXPECT_NE(out.find("Maximum concurrency for 131,072 tokens per request: "), std::string::npos) << out;
  const std::string quote = "\"GPU KV cache size: ";
  const size_t at = out.find(quote);
  ASSERT_NE(at, std::string::npos) << out;
  const size_t from = at + quote.size();  // the count's first digit too (a fixed 21 skipped it)
  const std::string count = out.substr(from, out.find(" tokens", from) - from);
  EXPECT_TRUE(std::regex_match(count, std::regex("[1-9][0-9]{0,2}(,[0-9]{3})+"))) << count;
}

}  // namespace
}  // namespace labcheck::calc

// Training (`vram`, `plan`) on the published configs of tests/calc/configs: the activations of the
// state layers (Jamba's Mamba, Nemotron-H's Mamba-2 blocks, Qwen3-Next's Gated DeltaNet) worked
// term by term from what transformers' training path and its kernels save, and expert parallelism.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/activation_memory.h"
#include "calc/calc_constants.h"
#include "calc/param_count.h"
#include "calc/training_memory.h"
#include "calc/training_plan.h"
#include "calc_cli.h"
#include "config_copies.h"

namespace labcheck::calc {
namespace {

TrainingSettings StateLayerSettings(Method method, bool checkpointing = false) {
  TrainingSettings s;
  s.method = method;
  s.seq = 2048;
  s.batch = 1;
  s.checkpointing = checkpointing;
  return s;
}

double ComponentBytes(const TrainingMemory& m, const std::string& id) {
  const MemoryComponent* c = m.Find(id);
  return c && c->bytes ? *c->bytes : -1;
}

TEST(StateLayerActivationsTest, JambaMambaLayerTermByTerm) {
  const Architecture arch = LoadPublishedConfig("jamba-v0.1");
  // h 4096, inner E = 2 x 4096 = 8192, dt_rank R 256, d_state N 16, seq 2048 (one 2048-token scan chunk).
  const double h = 4096, E = 8192, R = 256, N = 16;
  const double kept = 2 * 2 * E                        // in_proj's output (x and z), held by the conv's saved x
                      + 2 * (E + E + E)                // selective_scan_fn's contiguous u, delta, z
                      + 2 * 2 * N                      // and B, C
                      + 2 * E                          // its out before the gate
                      + 4 * E * 2 * N * 1 / 2048       // x: the FP32 state per 2048-token chunk
                      + 6 * R + 2 * 6 * N;             // dt, B, C RMSNorms: FP32 input + BF16 normalised
  const double inputs = 2 * (h + E + R + E);           // in_proj, x_proj, dt_proj, out_proj inputs
  const LayerActivationBytes full = LayerActivationsPerToken(arch, StateLayerSettings(Method::Full), 5);
  EXPECT_DOUBLE_EQ(full.state_mixer, kept + inputs);
  EXPECT_DOUBLE_EQ(full.state_mixer, 142'080);
  EXPECT_DOUBLE_EQ(full.attention, 0);
  // LoRA puts no adapters on the mixer (LoraParams), so its frozen projections keep no inputs.
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(arch, StateLayerSettings(Method::Lora), 5).state_mixer, kept);
  // Compiled, the three RMSNorms follow the rule of every other norm (rms_norm_bytes.h): the BF16
  // input alone, 2R + 2 x 2N instead of 6R + 2 x 6N; the block's own norms change the same way.
  TrainingSettings compiled = StateLayerSettings(Method::Full);
  compiled.compile = true;
  const LayerActivationBytes fused = LayerActivationsPerToken(arch, compiled, 5);
  EXPECT_DOUBLE_EQ(full.state_mixer - fused.state_mixer, 4 * R + 2 * 4 * N);
  EXPECT_DOUBLE_EQ(fused.norms, full.norms / 3);
  // Layer 4 is attention: no state mixer, the attention terms as before.
  const LayerActivationBytes attention = LayerActivationsPerToken(arch, StateLayerSettings(Method::Full), 4);
  EXPECT_DOUBLE_EQ(attention.state_mixer, 0);
  EXPECT_GT(attention.attention, 0);
  // A Mamba layer and an attention layer with the same kind of MLP (layers 6 and 4: dense) differ by
  // the mixer alone.
  const TrainingSettings s = StateLayerSettings(Method::Full);
  const LayerActivationBytes mamba_dense = LayerActivationsPerToken(arch, s, 6);
  EXPECT_DOUBLE_EQ(mamba_dense.total() - attention.total(), mamba_dense.state_mixer - attention.attention);
  // The MLPs: odd layers have 16 experts, 2 per token (expert_layer_period 2, offset 1); even ones a
  // dense MLP of 14,336. Full fine-tuning keeps gate/up's input, the gate output, SiLU's output, up's
  // output and down's input; an expert layer also the router's input and FP32 logits and softmax,
  // and each routed copy its own gathered input.
  const double w = 14336;
  EXPECT_DOUBLE_EQ(mamba_dense.mlp, 2 * h + 2 * 4 * w);
  EXPECT_DOUBLE_EQ(full.mlp, 2 * h + 2 * 4 * 16 + 2 * (2 * h + 2 * 4 * w));
  // The model's activations: every layer as its own kind, plus the final norm and lm_head's input.
  double layers = 0;
  for (int64_t i = 0; i < 32; ++i) layers += LayerActivationsPerToken(arch, s, i).total();
  EXPECT_DOUBLE_EQ(SavedActivationBytes(arch, s), (layers + 6 * h + 2 * h) * 2048);
  // The seq-long scan keeps one FP32 state per started 2048-token chunk: 3 chunks at 4096 + 1.
  TrainingSettings longer = s;
  longer.seq = 4097;
  EXPECT_NEAR(LayerActivationsPerToken(arch, longer, 5).state_mixer - full.state_mixer, 4 * E * 2 * N * (3.0 / 4097 - 1.0 / 2048), 1e-9);
}

TEST(StateLayerActivationsTest, NemotronHBlocksEachSaveTheirOwnKind) {
  const Architecture arch = LoadPublishedConfig("nemotron-h-56b-base-8k");
  // h 8192, inner 256 x 64 = 16,384, conv channels 16,384 + 2 x 8 x 256 = 20,480, 256 heads, 8 groups.
  const double h = 8192, inner = 16384, conv = 20480, heads = 256, groups = 8;
  const TrainingSettings s = StateLayerSettings(Method::Full);
  const LayerActivationBytes mamba = LayerActivationsPerToken(arch, s, 0);  // 'M'
  // mamba_split_conv1d_scan_combined saves zxbcdt (in_proj's output), out_x and the gated norm's rstd;
  // in_proj keeps its input.
  EXPECT_DOUBLE_EQ(mamba.state_mixer, 2 * (inner + conv + heads) + 2 * inner + 4 * groups + 2 * h);
  EXPECT_DOUBLE_EQ(mamba.state_mixer, 123'424);
  EXPECT_DOUBLE_EQ(mamba.mlp, 0);
  EXPECT_DOUBLE_EQ(mamba.norms, 6 * h);  // one RMSNorm per block
  const LayerActivationBytes mlp = LayerActivationsPerToken(arch, s, 1);  // '-': squared-ReLU up and down
  EXPECT_DOUBLE_EQ(mlp.state_mixer + mlp.attention, 0);
  EXPECT_DOUBLE_EQ(mlp.mlp, 2 * h + 2 * 2 * 32768);
  const LayerActivationBytes attention = LayerActivationsPerToken(arch, s, 7);  // '*'
  EXPECT_DOUBLE_EQ(attention.mlp + attention.state_mixer, 0);
  // 54 Mamba-2, 54 MLP and 10 attention blocks, each its own kind.
  EXPECT_DOUBLE_EQ(SavedActivationBytes(arch, s), (54 * mamba.total() + 54 * mlp.total() + 10 * attention.total() + 6 * h + 2 * h) * 2048);
}

TEST(StateLayerActivationsTest, Qwen3NextGatedDeltaNetTermByTerm) {
  const Architecture arch = LoadPublishedConfig("qwen3-next-80b-a3b-thinking");
  // h 2048; key width K 16 x 128 = 2048, value width V 32 x 128 = 4096, conv channels 2K + V = 8192;
  // 32 value heads Hv of key_head_dim 128; fla's chunk of 64.
  const double h = 2048, V = 4096, C = 8192, Hv = 32, dk = 128;
  const double kept = 2 * C + 2 * C                    // the conv's saved input and its output (held by v)
                      + 2 * 2 * Hv * dk + 4 * 2 * Hv   // l2-normalised q and k at Hv heads, their rstd
                      + 4 * Hv + 2 * Hv + 2 * Hv * 64  // g (FP32 cumsum), beta, the WY matrix A
                      + 4 * 2 * Hv                     // the gate's softplus input and output
                      + 2 * V + 2 * V + 4 * Hv;        // FusedRMSNormGated: o, z, rstd
  const LayerActivationBytes full = LayerActivationsPerToken(arch, StateLayerSettings(Method::Full), 4);
  EXPECT_DOUBLE_EQ(full.state_mixer, kept + 2 * h + 2 * V);
  EXPECT_DOUBLE_EQ(full.state_mixer, 82'752);
  // Its attention layers gate their output: sigmoid's output and the gated product, 2 x 2 x q bytes.
  Architecture ungated = arch;
  ungated.attn_output_gate = false;
  const TrainingSettings s = StateLayerSettings(Method::Full);
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(arch, s, 3).attention - LayerActivationsPerToken(ungated, s, 3).attention, 4.0 * 16 * 256);
}

TEST(StateLayerActivationsTest, CheckpointingKeepsInputsAndRecomputesTheWidestLayer) {
  const Architecture arch = LoadPublishedConfig("jamba-v0.1");
  const TrainingSettings s = StateLayerSettings(Method::Full, true);
  const double h = 4096;
  EXPECT_DOUBLE_EQ(SavedActivationBytes(arch, s), (32 * 2 * h + 6 * h + 2 * h) * 2048);
  // A Mamba layer recomputed, then its MoE MLP's backward (top-2 experts of 14,336: 3 x 2 x 28,672
  // bytes, wider than the scan's du, ddelta, dz and dout, 4 x 2 x 8192) and the residual's 2 x 2h.
  const double mamba_layer = LayerActivationsPerToken(arch, s, 5).total();
  EXPECT_GT(mamba_layer, LayerActivationsPerToken(arch, s, 4).total());
  EXPECT_DOUBLE_EQ(LayerBackwardBytes(arch, s), (mamba_layer + 3 * 2 * 28672 + 2 * 2 * h) * 2048);
}

// DeepSeek-V2-Lite: the first layer keeps a dense MLP (first_k_dense_replace 1, width 10,944); the
// others route 6 of 64 experts of 1,408 and run 2 shared experts (one MLP of 2,816) on every token.
TEST(MoeActivationsTest, DenseFirstLayersAndSharedExpertsAreCountedAtTheirWidths) {
  const Architecture arch = LoadPublishedConfig("deepseek-v2-lite");
  const TrainingSettings s = StateLayerSettings(Method::Full);
  const double h = 2048;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(arch, s, 0).mlp, 2 * h + 2 * 4 * 10944);
  const double routed = 2 * h + 2 * 4 * 64 + 6 * (2 * h + 2 * 4 * 1408);  // router, then 6 gathered copies
  const double shared = 2 * 4 * 2816;  // reads the router's input, already counted
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(arch, s, 1).mlp, routed + shared);
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(arch, s, 26).mlp, routed + shared);
}

// gpt-oss-20b (hidden 2880, 4 of 32 experts of 2880) with --moe-kernel megablocks: per routed row
// MegaBlocksMoeMLP keeps the gathered input, gate_up (2w), gate, sigmoid, GLU, up + 1, product and the
// expert's output (2h + 7w elements, BF16) where transformers' path counts input, gate, act, up and
// product (h + 4w); in backward gate_up's gradient is two full-width slice gradients (4w, not 3w).
TEST(MoeActivationsTest, MegaBlocksKeepsItsBinnedRowsAndGateUp) {
  const Architecture arch = LoadPublishedConfig("gpt-oss-20b");
  TrainingSettings s = StateLayerSettings(Method::Full, true);
  s.seq = 4096;
  const double h = 2880, w = 2880, k = 4, tokens = 4096;
  const TrainingSettings loop = s;
  s.moe_kernel = MoeKernel::MegaBlocks;
  const double router = 2 * h + 2 * 4 * 32;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(arch, loop, 0).mlp, router + k * 2 * (h + 4 * w));
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(arch, s, 0).mlp, router + k * 2 * (2 * h + 7 * w));
  const double saved = k * 2 * (h + 3 * w), gradient = k * 2 * w;
  EXPECT_DOUBLE_EQ(LayerBackwardBytes(arch, s) - LayerBackwardBytes(arch, loop), (saved + gradient) * tokens);
  EXPECT_DOUBLE_EQ(SavedActivationBytes(arch, s), SavedActivationBytes(arch, loop));  // checkpointing: layer inputs only
}

TEST(MoeActivationsTest, MegaBlocksNeedsFullFineTuningAndExperts) {
  const std::string gpt_oss = PublishedConfigDir() + "gpt-oss-20b";
  const testing::CliRun lora = testing::RunCalc({"vram", gpt_oss, "--method", "lora", "--moe-kernel", "megablocks"}, Lang::En);
  EXPECT_EQ(lora.exit_code, 2);
  EXPECT_NE(lora.err.find("full fine-tuning only"), std::string::npos) << lora.err;
  const testing::CliRun dense = testing::RunCalc({"vram", "qwen3-8b", "--moe-kernel", "megablocks"}, Lang::En);
  EXPECT_EQ(dense.exit_code, 2);
  EXPECT_NE(dense.err.find("no routed experts"), std::string::npos) << dense.err;
  const testing::CliRun json = testing::RunCalc({"vram", gpt_oss, "--moe-kernel", "megablocks", "--json"}, Lang::En);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["settings"]["moe_kernel"], "megablocks");
  // Left out, the default is listed as taken where it matters: full fine-tuning of an MoE model.
  auto lists_moe_kernel = [](const testing::CliRun& run) {
    const nlohmann::json out = nlohmann::json::parse(run.out);
    for (const auto& d : out["defaults_taken"]) {
      if (d["knob"] == "moe_kernel") return d["value"] == "transformers";
    }
    return false;
  };
  EXPECT_TRUE(lists_moe_kernel(testing::RunCalc({"vram", gpt_oss, "--json"}, Lang::En)));
  EXPECT_FALSE(lists_moe_kernel(testing::RunCalc({"vram", gpt_oss, "--method", "lora", "--json"}, Lang::En)));
  EXPECT_FALSE(lists_moe_kernel(testing::RunCalc({"vram", "qwen3-8b", "--json"}, Lang::En)));
}

TEST(ExpertParallelTrainingTest, RoutedExpertsShrinkByExactlyN) {
  const ModelInput mixtral = PublishedModelInput("mixtral-8x7b");
  const double routed = static_cast<double>(mixtral.counts()->routed_experts);
  const double total = static_cast<double>(mixtral.total_params());
  TrainingSettings s;
  s.gpus = 8;
  s.sharding = Sharding::Ddp;
  const TrainingMemory without = EstimateTrainingMemory(mixtral, s, CalcConstants::Builtin());
  s.expert_parallel = 8;
  const TrainingMemory with = EstimateTrainingMemory(mixtral, s, CalcConstants::Builtin());
  // BF16 weights and gradients, two BF16 AdamW states: only the routed experts are divided by 8.
  EXPECT_DOUBLE_EQ(ComponentBytes(with, "weights"), 2 * (total - routed) + 2 * routed / 8);
  EXPECT_DOUBLE_EQ(ComponentBytes(without, "weights") - ComponentBytes(with, "weights"), 2 * routed * (1 - 1.0 / 8));
  EXPECT_DOUBLE_EQ(ComponentBytes(with, "gradients"), 2 * (total - routed) + 2 * routed / 8);
  EXPECT_DOUBLE_EQ(ComponentBytes(with, "optimizer_states"), 4 * (total - routed) + 4 * routed / 8);
  EXPECT_DOUBLE_EQ(ComponentBytes(with, "activations"), ComponentBytes(without, "activations"));
  // One MoE layer's all-to-all in backward: 2048 tokens x top-2 rows x 4096 x 2 bytes, sent and received.
  EXPECT_DOUBLE_EQ(ComponentBytes(with, "ep_all_to_all"), 2 * 2048.0 * 2 * 4096 * 2);
  EXPECT_DOUBLE_EQ(ComponentBytes(without, "ep_all_to_all"), -1);  // absent without EP
  // ZeRO-1 shards the states over all 8 GPUs anyway; EP divides the experts' weights.
  s.sharding = Sharding::Zero1;
  const TrainingMemory zero1 = EstimateTrainingMemory(mixtral, s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(ComponentBytes(zero1, "optimizer_states"), 4 * total / 8);
  EXPECT_DOUBLE_EQ(ComponentBytes(zero1, "weights"), 2 * (total - routed) + 2 * routed / 8);
}

TEST(ExpertParallelTrainingTest, FsdpGathersOnlyTheLocalExperts) {
  const ModelInput mixtral = PublishedModelInput("mixtral-8x7b");
  const double routed_per_layer = static_cast<double>(mixtral.counts()->routed_experts) / 32;
  TrainingSettings s;
  s.gpus = 8;
  s.sharding = Sharding::Fsdp;
  s.method = Method::Lora;
  const TrainingMemory without = EstimateTrainingMemory(mixtral, s, CalcConstants::Builtin());
  s.expert_parallel = 4;
  const TrainingMemory with = EstimateTrainingMemory(mixtral, s, CalcConstants::Builtin());
  // The shards are the same (8 ways either way: efsdp = 8 / 4 under 4-way EP) ...
  EXPECT_DOUBLE_EQ(ComponentBytes(with, "weights"), ComponentBytes(without, "weights"));
  // ... but a layer gathers 2 of 8 experts: the current and the prefetched layer, 3/4 of their experts less each.
  EXPECT_DOUBLE_EQ(ComponentBytes(without, "fsdp_layer_stage") - ComponentBytes(with, "fsdp_layer_stage"), 2 * 2 * routed_per_layer * 0.75);
}

TEST(ExpertParallelTrainingTest, PlanSearchesMultiplesOfTheExpertGroup) {
  const ModelInput mixtral = PublishedModelInput("mixtral-8x7b");
  TrainingSettings s;
  s.method = Method::Qlora;
  s.checkpointing = true;
  s.sharding = Sharding::Fsdp;
  s.expert_parallel = 4;
  const Throughput speed{20, 40, Text("test")};
  const TrainingPlan plan = PlanTraining(mixtral, s, 1e8, 8, 80, speed, Bandwidth{10, Text("test")}, CalcConstants::Builtin());
  ASSERT_TRUE(plan.shard_gpus.has_value());
  EXPECT_EQ(*plan.shard_gpus % 4, 0);  // QLoRA fits on one card, but a copy must hold the EP group
  EXPECT_EQ(plan.expert_parallel, 4);
}

TEST(ExpertParallelTrainingTest, BadExpertParallelIsExitCode2) {
  const std::string mixtral = PublishedConfigDir() + "mixtral-8x7b";
  const testing::CliRun dense = testing::RunCalc({"vram", "qwen3-8b", "--gpus", "2", "--expert-parallel", "2"}, Lang::En);
  EXPECT_EQ(dense.exit_code, 2);
  EXPECT_NE(dense.err.find("no routed experts"), std::string::npos) << dense.err;
  const testing::CliRun gpus = testing::RunCalc({"vram", mixtral, "--gpus", "4", "--expert-parallel", "3"}, Lang::En);
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_NE(gpus.err.find("does not divide --gpus 4"), std::string::npos) << gpus.err;
  const testing::CliRun experts = testing::RunCalc({"vram", mixtral, "--gpus", "16", "--expert-parallel", "16"}, Lang::Ru);
  EXPECT_EQ(experts.exit_code, 2);
  EXPECT_NE(experts.err.find("не делит число экспертов 8"), std::string::npos) << experts.err;
  const testing::CliRun zero3 = testing::RunCalc({"vram", mixtral, "--gpus", "8", "--sharding", "zero3", "--expert-parallel", "2"}, Lang::En);
  EXPECT_EQ(zero3.exit_code, 2);
  EXPECT_NE(zero3.err.find("MoE not supported with Stage 3"), std::string::npos) << zero3.err;
}

TEST(ExpertParallelTrainingTest, ShownInTextAndJson) {
  const std::string mixtral = PublishedConfigDir() + "mixtral-8x7b";
  const std::vector<std::string> args = {"vram", mixtral, "--gpus", "8", "--expert-parallel", "8"};
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const testing::CliRun json = testing::RunCalc(json_args, Lang::En);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["settings"]["expert_parallel"], 8);
  EXPECT_EQ(j["settings"]["expert_shard_gpus"]["weights"], 8);
  bool layout = false;
  for (const auto& note : j["assumptions"]) layout = layout || note["key"] == "expert_parallel_layout";
  EXPECT_TRUE(layout);
  const testing::CliRun en = testing::RunCalc(args, Lang::En);
  EXPECT_NE(en.out.find("expert parallel 8"), std::string::npos);
  // The table cell may wrap anywhere but inside "8 GPUs": read it with its wraps as spaces.
  std::string flat;
  for (char c : en.out) {
    if (c == ' ' || c == '\n') {
      if (!flat.empty() && flat.back() != ' ') flat += ' ';
    } else {
      flat += c;
    }
  }
  EXPECT_NE(flat.find("routed experts / 8 GPUs"), std::string::npos) << en.out;
  const testing::CliRun ru = testing::RunCalc(args, Lang::Ru);
  EXPECT_NE(ru.out.find("эксперты / 8 GPU"), std::string::npos) << ru.out;  // "маршрутизируемые" may wrap
  EXPECT_NE(ru.out.find("экспертный параллелизм 8"), std::string::npos);
}

}  // namespace
}  // namespace labcheck::calc

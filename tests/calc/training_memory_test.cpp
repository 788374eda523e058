// The training-memory formulas against figures worked out by hand (derivations in the comments).
#include <gtest/gtest.h>

#include <algorithm>

#include "calc/activation_memory.h"
#include "calc/byte_units.h"
#include "calc/model_catalog.h"
#include "calc/training_memory.h"

namespace labcheck::calc {
namespace {

const Architecture& Llama8b() { return ModelCatalog::Builtin().Find("llama-3.1-8b")->arch; }

TrainingSettings Tokens(int64_t seq, bool checkpointing = false, Method method = Method::Full) {
  TrainingSettings s;
  s.seq = seq;
  s.checkpointing = checkpointing;
  s.method = method;
  return s;
}

ModelInput Catalog(const std::string& name) {
  auto model = ResolveModel(name, ModelCatalog::Builtin(), [](const std::string&) { return std::nullopt; });
  return model.value();
}

double Bytes(const TrainingMemory& m, const std::string& id) { return m.Find(id)->bytes.value(); }

TEST(ActivationMemoryTest, Llama8bLayerByHand) {
  // h = 4096, q = 4096, kv = 1024, MLP 14336, 32 heads, no q/k norms, 2 RMSNorms, SDPA.
  // norms 2 * (4 + 2) * 4096 = 49,152
  // attention: input 2*4096 = 8,192; RoPE saves only cos/sin: 0; q,k,v 2*(4096+2048) = 12,288;
  //            log-sum-exp 4*32 = 128; SDPA output 2*4096 = 8,192; o_proj input copy 8,192 -> 36,992
  // MLP: input 8,192 + 4 tensors * 2 bytes * 14336 = 114,688 -> 122,880
  const LayerActivationBytes layer = LayerActivationsPerToken(Llama8b(), Tokens(2048));
  EXPECT_DOUBLE_EQ(layer.norms, 49'152);
  EXPECT_DOUBLE_EQ(layer.attention, 36'992);
  EXPECT_DOUBLE_EQ(layer.mlp, 122'880);
  EXPECT_DOUBLE_EQ(layer.lora, 0);
  EXPECT_DOUBLE_EQ(layer.total(), 209'024);
}

TEST(ActivationMemoryTest, CompileKeepsTheBf16InputOfEachNorm) {
  // norms 2 * 2 * 4096 = 16,384; the MLP keeps its matmul inputs and outputs as in eager.
  TrainingSettings s = Tokens(2048);
  s.compile = true;
  const LayerActivationBytes layer = LayerActivationsPerToken(Llama8b(), s);
  EXPECT_DOUBLE_EQ(layer.norms, 16'384);
  EXPECT_DOUBLE_EQ(layer.mlp, 122'880);
  // The compiled loss recomputes the log-softmax in backward: 4V less.
  EXPECT_DOUBLE_EQ(LogitsBytes(Llama8b(), s), 10.0 * 128256 * 2048);
  // Chunked and compiled: the BF16 logits, and one chunk's BF16 gradient (2V / 8).
  s.loss = LossKind::Chunked;
  EXPECT_DOUBLE_EQ(LogitsBytes(Llama8b(), s), (2.0 + 2.0 / 8) * 128256 * 2048);
}

TEST(ActivationMemoryTest, EagerAttentionSavesTheScores) {
  // Eager: q and k, v repeated to 32 heads 3 * 2 * 4096 = 24,576 and 6 bytes * 32 heads * 2048
  // = 393,216 of scores, instead of SDPA's 12,288 + 128.
  TrainingSettings s = Tokens(2048);
  s.attention = Attention::Eager;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(Llama8b(), s).attention, 36'992 - 12'288 - 128 + 24'576 + 393'216);
}

TEST(ActivationMemoryTest, CheckpointingKeepsLayerInputsAndOneLayer) {
  // Saved without: (32 * 209,024 + final norm 6*4096 + lm_head input 2*4096) * 2048 = 6,721,536 * 2048.
  EXPECT_DOUBLE_EQ(SavedActivationBytes(Llama8b(), Tokens(2048)), 6'721'536.0 * 2048);
  // Saved with: (32 layer inputs * 2*4096 + 32,768) * 2048 = 294,912 * 2048.
  EXPECT_DOUBLE_EQ(SavedActivationBytes(Llama8b(), Tokens(2048, true)), 294'912.0 * 2048);
  // A layer's backward: gradients of the MLP's product, gate and up outputs and of the residual
  // stream in and out, 2 * (3*14336 + 2*4096) = 102,400; with checkpointing the layer recomputed
  // on top, 209,024.
  EXPECT_DOUBLE_EQ(LayerBackwardBytes(Llama8b(), Tokens(2048)), 102'400.0 * 2048);
  EXPECT_DOUBLE_EQ(LayerBackwardBytes(Llama8b(), Tokens(2048, true)), (209'024.0 + 102'400) * 2048);
}

TEST(ActivationMemoryTest, OffloadKeepsTwoLayersOnTheGpu) {
  // Checkpointing + offload: 2 layer inputs 2 * 8,192 + head 32,768 saved.
  TrainingSettings s = Tokens(2048, true);
  s.offload.activations = true;
  EXPECT_DOUBLE_EQ(SavedActivationBytes(Llama8b(), s), (16'384.0 + 32'768) * 2048);
}

TEST(TrainingMemoryTest, TheLogitsAndALayersBackwardAreNotAliveTogether) {
  // With checkpointing the loss stage (logits) and the layer stage (one layer recomputed) follow
  // each other: the peak holds the larger, not both.
  ModelInput model = Catalog("llama-3.1-8b");
  TrainingSettings s = Tokens(2048, true, Method::Lora);
  s.adapter_bytes = 2;
  const TrainingMemory m = EstimateTrainingMemory(model, s, CalcConstants{});
  double always = 0;
  for (const char* id : {"weights", "adapters", "optimizer_states"}) always += Bytes(m, id);
  const double stages = std::max(Bytes(m, "logits"), Bytes(m, "layer_backward"));
  EXPECT_DOUBLE_EQ(*m.peak_allocated_bytes, always + Bytes(m, "activations") + stages);
  EXPECT_LT(*m.peak_allocated_bytes, always + Bytes(m, "activations") + Bytes(m, "logits") + Bytes(m, "layer_backward"));
}

TEST(ActivationMemoryTest, LoraAddsFp32InputCopies) {
  // q, k, v read h, o reads q, gate and up read h, down reads 14336: 4 * (3*4096 + 4096 + 2*4096 + 14336)
  // = 4 * 38,912 = 155,648; plus FP32 rank-16 outputs of 7 adapters 4*16*7 = 448.
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(Llama8b(), Tokens(2048, false, Method::Lora)).lora, 156'096);
  // BF16 adapters reuse the inputs: only the rank-wide outputs, 2*16*7 = 224.
  TrainingSettings bf16 = Tokens(2048, false, Method::Lora);
  bf16.adapter_bytes = 2;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(Llama8b(), bf16).lora, 224);
}

TEST(ActivationMemoryTest, LoraDropoutKeepsItsOutputAndMask) {
  // PEFT's nn.Dropout before lora_A: lora_A keeps the dropout's output (adapter dtype) and the
  // dropout its bool mask, per adapted input: 38,912 inputs (above) x (2 + 1) = 116,736 with BF16
  // adapters, plus the rank-wide outputs 224.
  TrainingSettings bf16 = Tokens(2048, false, Method::Lora);
  bf16.adapter_bytes = 2;
  bf16.lora_dropout = 0.1;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(Llama8b(), bf16).lora, 116'736 + 224);
  // FP32 adapters: the FP32 cast is dropped after the dropout reads it; its output (4) and mask (1)
  // stay: 38,912 x 5 + 448.
  TrainingSettings fp32 = Tokens(2048, false, Method::Lora);
  fp32.lora_dropout = 0.05;
  EXPECT_DOUBLE_EQ(LayerActivationsPerToken(Llama8b(), fp32).lora, 194'560 + 448);
}

TEST(ActivationMemoryTest, LossKernels) {
  TrainingSettings s = Tokens(2048);
  EXPECT_DOUBLE_EQ(LogitsBytes(Llama8b(), s), 14.0 * 128256 * 2048);
  s.loss = LossKind::Chunked;  // 6V kept, and one chunk of 8 has its FP32 and BF16 gradients
  EXPECT_DOUBLE_EQ(LogitsBytes(Llama8b(), s), (6.0 + 6.0 / 8) * 128256 * 2048);
  s.loss = LossKind::Fused;
  EXPECT_DOUBLE_EQ(LogitsBytes(Llama8b(), s), 10.0 * 4096 * 2048);
}

TEST(TrainingMemoryTest, FullFineTuningBf16ByHand) {
  // N = 8,030,261,248. Weights 2N, AdamW states 4N, gradients 2N, foreach step buffer 2N.
  // Forward phase: activations 14,571,012,096 + logits 3,677,380,608 = 18.2 GB < step phase 4N = 32.1 GB,
  // so the peak is 2N + 4N + 4N = 10N = 80,302,612,480 bytes.
  TrainingSettings s;
  const TrainingMemory m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  const double n = 8'030'261'248.0;
  EXPECT_DOUBLE_EQ(Bytes(m, "weights"), 2 * n);
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 4 * n);
  EXPECT_DOUBLE_EQ(Bytes(m, "gradients"), 2 * n);
  ASSERT_TRUE(m.peak_allocated_bytes.has_value());
  EXPECT_DOUBLE_EQ(*m.peak_allocated_bytes, 10 * n);
  const CalcConstants& k = CalcConstants::Builtin();
  EXPECT_DOUBLE_EQ(*m.peak_total_bytes, 10 * n * (1 + k.allocator_reserve_fraction) + k.cuda_context_gib * (1 << 30));
}

TEST(TrainingMemoryTest, MixedPrecisionAnd8BitAdam) {
  TrainingSettings s;
  s.precision = Precision::Mixed;
  const double n = 8'030'261'248.0;
  TrainingMemory m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(m, "weights"), 4 * n);           // FP32 master weights
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 8 * n);  // two FP32 states
  s.optimizer = Optimizer::AdamW8bit;
  m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 2 * n);
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_step_buffer"), 0);
  s.optimizer = Optimizer::Sgd;
  m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 0);
}

TEST(TrainingMemoryTest, LoraTrainsOnlyTheAdaptersInFp32) {
  TrainingSettings s;
  s.method = Method::Lora;
  const TrainingMemory m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  const double adapters = 41'943'040;  // see ParamCountTest.LoraParamsByHand
  EXPECT_EQ(m.trainable_params, 41'943'040);
  EXPECT_DOUBLE_EQ(Bytes(m, "weights"), 2 * 8'030'261'248.0);
  EXPECT_DOUBLE_EQ(Bytes(m, "adapters"), 4 * adapters);
  EXPECT_DOUBLE_EQ(Bytes(m, "optimizer_states"), 8 * adapters);
}

TEST(TrainingMemoryTest, ShardingDividesStatesButNotActivations) {
  TrainingSettings one, four;
  four.gpus = 4;
  four.sharding = Sharding::Fsdp;
  const ModelInput model = Catalog("qwen3-8b");
  const TrainingMemory a = EstimateTrainingMemory(model, one, CalcConstants::Builtin());
  const TrainingMemory b = EstimateTrainingMemory(model, four, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(b, "weights"), Bytes(a, "weights") / 4);
  EXPECT_DOUBLE_EQ(Bytes(b, "optimizer_states"), Bytes(a, "optimizer_states") / 4);
  EXPECT_DOUBLE_EQ(Bytes(b, "activations"), Bytes(a, "activations"));
  EXPECT_NE(b.Find("fsdp_layer_stage"), nullptr);
}

// Llama 3.1 70B: a decoder layer is 150,994,944 attention + 704,643,072 MLP = 855,638,016
// parameters; lm_head and the embedding 128,256 x 8192 = 1,050,673,152 each.
constexpr double kLlama70bLayer = 855'638'016.0, kLlama70bHead = 1'050'673'152.0;

// Full fine-tuning under FSDP over 8 GPUs with the parameters offloaded to CPU RAM.
TrainingSettings FsdpOffloadedOver8() {
  TrainingSettings s;
  s.gpus = 8;
  s.sharding = Sharding::Fsdp;
  s.offload.params = true;
  return s;
}

TEST(TrainingMemoryTest, FsdpKeepsTheRootUnitAndGathersLayerByLayer) {
  const ModelInput model = Catalog("llama-3.1-70b");
  const double layer = kLlama70bLayer, head = kLlama70bHead;
  TrainingSettings s = FsdpOffloadedOver8();
  const TrainingMemory root = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  // Root unit: embeddings + lm_head in BF16, and lm_head's gradient until the end of backward.
  EXPECT_DOUBLE_EQ(Bytes(root, "fsdp_root"), 2 * (2 * head) + 2 * head);
  EXPECT_DOUBLE_EQ(Bytes(root, "fsdp_loss_stage"), 2 * layer);  // one layer prefetched
  // Current + next layer, the layer's gradient, the previous layer's reduce-scatter input, and its
  // 1/8 shard waiting for the copy to the host.
  EXPECT_DOUBLE_EQ(Bytes(root, "fsdp_layer_stage"), 2 * layer * 2 + 2 * layer + 2 * layer + 2 * layer / 8);
  s.shard_embeddings = true;
  const TrainingMemory apart = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_EQ(apart.Find("fsdp_root"), nullptr);
  EXPECT_DOUBLE_EQ(Bytes(apart, "fsdp_loss_stage"), 2 * head + 2 * head + 2 * layer);
  // The first layer's backward still holds lm_head's reduce-scatter input, the larger of the two.
  EXPECT_DOUBLE_EQ(Bytes(apart, "fsdp_layer_stage"), 2 * layer * 2 + 2 * layer + 2 * head + 2 * layer / 8);
  s.reshard_after_forward = false;
  const TrainingMemory kept = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(kept, "fsdp_unsharded_layers"), 80 * 2 * layer);
}

// FSDP1 copies each offloaded shard to the GPU on its pre_unshard stream, and the caching allocator
// reuses that block for that stream only: the largest shard stays reserved. Here the root unit
// (embeddings + lm_head, 2 x 1,050,673,152 BF16 parameters) over 8 GPUs; with them as units of
// their own the largest is lm_head's shard (the embedding has the same size). Reserved, so in the
// total per GPU and not in the allocator's peak; nothing without offload or under ZeRO-3.
TEST(TrainingMemoryTest, OffloadKeepsTheLargestShardCopyReserved) {
  const ModelInput model = Catalog("llama-3.1-70b");
  const double head = kLlama70bHead;
  TrainingSettings s = FsdpOffloadedOver8();
  const CalcConstants k = CalcConstants::Builtin();
  const TrainingMemory m = EstimateTrainingMemory(model, s, k);
  EXPECT_DOUBLE_EQ(Bytes(m, "offload_copy_cache"), 2 * (2 * head) / 8);
  const double peak = *m.peak_allocated_bytes;
  EXPECT_DOUBLE_EQ(*m.peak_total_bytes, peak * (1 + k.allocator_reserve_fraction) + 2 * (2 * head) / 8 + k.cuda_context_gib * kBytesPerGiB);
  s.shard_embeddings = true;
  EXPECT_DOUBLE_EQ(Bytes(EstimateTrainingMemory(model, s, k), "offload_copy_cache"), 2 * head / 8);
  s.offload.params = false;
  EXPECT_EQ(EstimateTrainingMemory(model, s, k).Find("offload_copy_cache"), nullptr);
  s.offload.params = true;
  s.sharding = Sharding::Zero3;
  EXPECT_EQ(EstimateTrainingMemory(model, s, k).Find("offload_copy_cache"), nullptr);
}

// FSDP2 with CPUOffloadPolicy: the all-gather copy-in stream's pool holds, in forward, the root's
// all-gather output (embeddings + lm_head, 4h bytes) while layer 0's output (2l) and its shard
// copies (2l/8) are allocated: 4h + 2.25l, of which the allocated peak already has the prefetched
// layer (2l): 4h + 0.25l stays apart. The reduce-scatter stream's pool peaks at the root's gradient
// shard (4h/8), of which the peak has a layer's (2l/8): 0.5h - 0.25l. Together 4.5h. With the
// embeddings and lm_head as units of their own the copy-in peak is lm_head's unit beside the last
// layer's output (2l + 2h + 2h/8): 2.25h apart, and the reduce-scatter pool's lm_head shard
// (2h/8 - 2l/8): 2.5h - 0.25l. The allocated peak is FSDP1's. Without offload the all-gather
// outputs still live on the copy-in stream, but the shards are copied straight into them and the
// reduce-scatter output is the gradient itself: the root's output alone stays apart (4h; 2h with
// the embeddings in a unit of their own), and a mixed-precision cast brings the copies back (0.25l).
TEST(TrainingMemoryTest, Fsdp2KeepsItsStreamPoolsReserved) {
  const ModelInput model = Catalog("llama-3.1-70b");
  const double layer = kLlama70bLayer, head = kLlama70bHead;
  TrainingSettings s = FsdpOffloadedOver8();
  const CalcConstants k = CalcConstants::Builtin();
  const TrainingMemory fsdp1 = EstimateTrainingMemory(model, s, k);
  s.fsdp_version = 2;
  const TrainingMemory fsdp2 = EstimateTrainingMemory(model, s, k);
  EXPECT_EQ(fsdp2.Find("offload_copy_cache"), nullptr);
  EXPECT_DOUBLE_EQ(Bytes(fsdp2, "fsdp2_stream_pools"), 4.5 * head);
  EXPECT_DOUBLE_EQ(*fsdp2.peak_allocated_bytes, *fsdp1.peak_allocated_bytes);
  EXPECT_DOUBLE_EQ(*fsdp2.peak_total_bytes - *fsdp1.peak_total_bytes, 4.5 * head - Bytes(fsdp1, "offload_copy_cache"));
  s.shard_embeddings = true;
  EXPECT_DOUBLE_EQ(Bytes(EstimateTrainingMemory(model, s, k), "fsdp2_stream_pools"), 2.5 * head - 0.25 * layer);
  s.offload.params = false;
  EXPECT_DOUBLE_EQ(Bytes(EstimateTrainingMemory(model, s, k), "fsdp2_stream_pools"), 2 * head);
  s.shard_embeddings = false;
  EXPECT_DOUBLE_EQ(Bytes(EstimateTrainingMemory(model, s, k), "fsdp2_stream_pools"), 4 * head);
  s.precision = Precision::Mixed;
  EXPECT_DOUBLE_EQ(Bytes(EstimateTrainingMemory(model, s, k), "fsdp2_stream_pools"), 4 * head + 0.25 * layer);
  s.fsdp_version = 1;
  EXPECT_EQ(EstimateTrainingMemory(model, s, k).Find("fsdp2_stream_pools"), nullptr);
}

// A loop that holds the model output through backward keeps transformers' FP32 logits (4V per
// token) beside every layer's backward, and the loss stage then holds them instead of BF16 ones:
// 4V + 12V = 16V there, against 14V when the output dies before backward.
TEST(TrainingMemoryTest, KeptLogitsStayThroughTheLayersBackward) {
  const ModelInput model = Catalog("llama-3.1-8b");
  TrainingSettings s = Tokens(2048, true, Method::Lora);
  const double v = 128256.0 * 2048;
  const TrainingMemory dropped = EstimateTrainingMemory(model, s, CalcConstants{});
  s.keep_logits = true;
  const TrainingMemory kept = EstimateTrainingMemory(model, s, CalcConstants{});
  EXPECT_DOUBLE_EQ(Bytes(dropped, "logits"), 14 * v);
  EXPECT_EQ(dropped.Find("kept_logits"), nullptr);
  EXPECT_DOUBLE_EQ(Bytes(kept, "logits"), 12 * v);
  EXPECT_DOUBLE_EQ(Bytes(kept, "kept_logits"), 4 * v);
  // The kept logits sit beside both stages: max(14V, L) becomes 4V + max(12V, L).
  const double layer = Bytes(dropped, "layer_backward");
  const double grew = *kept.peak_allocated_bytes - *dropped.peak_allocated_bytes;
  EXPECT_DOUBLE_EQ(grew, 4 * v + std::max(12 * v, layer) - std::max(14 * v, layer));
  EXPECT_GT(grew, 0);
}

// bitsandbytes keeps each NF4 weight's absmax and nested absmax (8/64 + 32/(64*256) bits per weight)
// on the Linear4bit, not in the parameter FSDP flattens: the packed 4-bit codes are sharded or
// offloaded, that state stays whole on every GPU. Llama 3.1 70B quantises its decoder layers'
// linear weights, 80 x 855,638,016 = 68,451,041,280.
TEST(TrainingMemoryTest, FsdpLeavesTheNf4QuantisationStateWholeOnEveryGpu) {
  const ModelInput model = Catalog("llama-3.1-70b");
  const CalcConstants& k = CalcConstants::Builtin();
  const double layer = 855'638'016.0, quantized = 80 * layer;
  const double state = quantized * (8.0 / 64 + 32.0 / (64 * 256)) / 8;
  TrainingSettings s;
  s.method = Method::Qlora;
  const TrainingMemory one = EstimateTrainingMemory(model, s, k);
  EXPECT_EQ(one.Find("nf4_quant_state"), nullptr);  // one GPU holds all of it anyway, in "weights"
  s.gpus = 2;
  s.sharding = Sharding::Fsdp;
  const TrainingMemory two = EstimateTrainingMemory(model, s, k);
  ASSERT_NE(two.Find("nf4_quant_state"), nullptr);
  EXPECT_DOUBLE_EQ(Bytes(two, "nf4_quant_state"), state);
  EXPECT_NEAR(2 * Bytes(two, "weights") + state, Bytes(one, "weights"), 1);
  EXPECT_DOUBLE_EQ(Bytes(two, "fsdp_loss_stage"), layer * 4 / 8);  // the prefetched layer: packed codes only
  s.gpus = 8;
  EXPECT_DOUBLE_EQ(Bytes(EstimateTrainingMemory(model, s, k), "nf4_quant_state"), state);
  // Parameter offload moves the codes to CPU RAM; the state stays on the GPU and out of host RAM.
  s.offload.params = true;
  const TrainingMemory offloaded = EstimateTrainingMemory(model, s, k);
  ASSERT_NE(offloaded.Find("nf4_quant_state"), nullptr);
  EXPECT_EQ(offloaded.Find("nf4_quant_state")->phase, MemoryPhase::Always);
  EXPECT_EQ(offloaded.Find("weights")->phase, MemoryPhase::Cpu);
  EXPECT_GE(offloaded.peak_allocated_bytes.value(), state);
  // DeepSpeed ZeRO-3's partitioning of bitsandbytes weights was not read: no claim there.
  s.offload.params = false;
  s.sharding = Sharding::Zero3;
  EXPECT_EQ(EstimateTrainingMemory(model, s, k).Find("nf4_quant_state"), nullptr);
}

TEST(TrainingMemoryTest, ZeroThreeFollowsDeepSpeedsBudgets) {
  const ModelInput model = Catalog("llama-3.1-70b");
  const CalcConstants& k = CalcConstants::Builtin();
  TrainingSettings s;
  s.gpus = 8;
  s.sharding = Sharding::Zero3;
  const TrainingMemory m = EstimateTrainingMemory(model, s, k);
  const double layer = 855'638'016.0, head = 1'050'673'152.0;
  // lm_head alone is over stage3_max_live_parameters (1e9): it is gathered anyway.
  EXPECT_DOUBLE_EQ(Bytes(m, "zero3_loss_stage"), 2 * head + 2 * head + 2 * k.zero3_reduce_bucket_elements);
  EXPECT_DOUBLE_EQ(Bytes(m, "zero3_layer_stage"), 2 * std::min(k.zero3_max_live_params, layer + k.zero3_prefetch_bucket_params) + 2 * layer +
                                                     2 * k.zero3_reduce_bucket_elements);
}

TEST(TrainingMemoryTest, HostRamIsTheOffloadedStateOfEveryGpu) {
  const ModelInput model = Catalog("llama-3.1-70b");
  TrainingSettings s;
  s.gpus = 8;
  s.sharding = Sharding::Fsdp;
  s.offload.params = true;
  const TrainingMemory m = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  // BF16 weights and gradients, two BF16 AdamW states: 8 bytes per parameter over the 8 shards.
  const double n = static_cast<double>(m.total_params);
  EXPECT_DOUBLE_EQ(m.cpu_bytes, 8 * n / 8);
  EXPECT_DOUBLE_EQ(m.host_ram_bytes, 8 * n);
  EXPECT_DOUBLE_EQ(m.host_ram_planned_bytes, 1.5 * 8 * n);
}

TEST(TrainingMemoryTest, DdpReplicatesAndZeroStagesShardInTurn) {
  const ModelInput model = Catalog("qwen3-8b");
  TrainingSettings one, s;
  s.gpus = 4;
  const TrainingMemory a = EstimateTrainingMemory(model, one, CalcConstants::Builtin());
  const TrainingMemory ddp = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(ddp, "weights"), Bytes(a, "weights"));
  EXPECT_DOUBLE_EQ(Bytes(ddp, "ddp_buckets"), Bytes(a, "gradients"));
  s.sharding = Sharding::Zero1;
  const TrainingMemory z1 = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(z1, "optimizer_states"), Bytes(a, "optimizer_states") / 4);
  EXPECT_DOUBLE_EQ(Bytes(z1, "gradients"), Bytes(a, "gradients"));
  s.sharding = Sharding::Zero2;
  const TrainingMemory z2 = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(z2, "gradients"), Bytes(a, "gradients") / 4);
  EXPECT_DOUBLE_EQ(Bytes(z2, "weights"), Bytes(a, "weights"));
  s.gpus = 16;
  s.sharding = Sharding::Hybrid;  // groups of 8: shards like FSDP on 8
  const TrainingMemory hybrid = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(hybrid, "weights"), Bytes(a, "weights") / 8);
}

TEST(TrainingMemoryTest, PagedAndOffloadedStatesLeaveTheAllocatorPeak) {
  const ModelInput model = Catalog("llama-3.1-8b");
  TrainingSettings s;
  s.optimizer = Optimizer::PagedAdamW8bit;
  const TrainingMemory paged = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_EQ(paged.Find("optimizer_states")->phase, MemoryPhase::Paged);
  EXPECT_DOUBLE_EQ(paged.paged_bytes, 2 * 8'030'261'248.0);
  s.optimizer = Optimizer::AdamW8bit;
  const TrainingMemory resident = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_NEAR(*resident.peak_allocated_bytes - *paged.peak_allocated_bytes, 2 * 8'030'261'248.0, 1);
  s.offload.optimizer = true;
  const TrainingMemory offloaded = EstimateTrainingMemory(model, s, CalcConstants::Builtin());
  EXPECT_EQ(offloaded.Find("optimizer_states")->phase, MemoryPhase::Cpu);
  EXPECT_GT(offloaded.cpu_bytes, 0);
}

TEST(TrainingMemoryTest, OptimizerInBackwardKeepsOneGradient) {
  // Full fine-tuning of Llama 3.1 8B: the largest tensor is the embedding, 128256 x 4096, BF16.
  TrainingSettings s;
  s.optimizer_in_backward = true;
  s.optimizer = Optimizer::AdamWFused;
  const TrainingMemory m = EstimateTrainingMemory(Catalog("llama-3.1-8b"), s, CalcConstants::Builtin());
  EXPECT_DOUBLE_EQ(Bytes(m, "gradients"), 128256.0 * 4096 * 2);
  EXPECT_EQ(m.Find("optimizer_step_buffer"), nullptr);
}

TEST(TrainingMemoryTest, LoraTargetsAndExperts) {
  const Architecture& moe = ModelCatalog::Builtin().Find("qwen3-30b-a3b")->arch;
  const int64_t all = LoraParams(moe, 16, LoraTargets::AllLinear(), true);
  const int64_t no_experts = LoraParams(moe, 16, LoraTargets::AllLinear(), false);
  const int64_t attention = LoraParams(moe, 16, LoraTargets::Attention(), true);
  EXPECT_EQ(no_experts, attention);  // Qwen3-MoE has no shared expert: all-linear minus experts = attention
  EXPECT_GT(all, 20 * no_experts);   // 128 experts x 3 matrices dwarf q, k, v, o
  // q,v on Llama 3.1 8B: 32 layers x 16 x ((4096 + 4096) + (4096 + 1024)) = 6,815,744.
  EXPECT_EQ(LoraParams(Llama8b(), 16, LoraTargets::Qv()), 6'815'744);
}

TEST(TrainingMemoryTest, BareSizeLeavesArchitecturePartsUnknown) {
  TrainingSettings s;
  s.method = Method::Qlora;
  auto model = ResolveModel("7B", ModelCatalog::Builtin(), [](const std::string&) { return std::nullopt; });
  const TrainingMemory m = EstimateTrainingMemory(model.value(), s, CalcConstants::Builtin());
  EXPECT_FALSE(m.Find("activations")->bytes.has_value());
  EXPECT_FALSE(m.Find("adapters")->bytes.has_value());
  EXPECT_FALSE(m.peak_allocated_bytes.has_value());
  EXPECT_NEAR(*m.Find("weights")->bytes, 7e9 * 4.126953125 / 8, 1);
}

}  // namespace
}  // namespace labcheck::calc

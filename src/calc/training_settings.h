// How a training run is set up: what the memory, cost and plan calculators take as input. Every
// knob a real recipe turns (loss kernel, optimizer flavour, offload, sharding, LoRA targets,
// attention kernel, packing, torch.compile) is a field here; training_options.h parses them and
// records which defaults were taken.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace labcheck::calc {

enum class Method { Full, Lora, Qlora };
// adamw: torch.optim.AdamW as PyTorch runs it on CUDA by default (foreach); adamw-fused: fused=True
// (one kernel, no temporary); adamw8bit: bitsandbytes AdamW8bit; paged-adamw / paged-adamw8bit:
// bitsandbytes' paged optimizers, states in CUDA unified memory outside PyTorch's allocator.
enum class Optimizer { AdamW, AdamWFused, AdamW8bit, PagedAdamW, PagedAdamW8bit, Sgd };
// bf16: weights, gradients and optimizer states all BF16 (what the lesson's "x 2 bytes x 4"
// assumes). mixed: FP32 master weights, gradients and states with BF16 autocast (HF Trainer
// with bf16=True on an FP32-loaded model).
enum class Precision { Bf16, Mixed };
// full: the whole logits tensor, upcast to FP32 (transformers' ForCausalLMLoss). chunked: logits
// in chunks, each upcast on its own (torchtune CEWithChunkedOutputLoss). fused: the output layer
// and the loss in one chunked kernel that never holds the logits (Liger, cut-cross-entropy,
// Unsloth, torchtune LinearCrossEntropyLoss).
enum class LossKind { Full, Chunked, Fused };
// sdpa / flash: fused kernels that keep only q, k, v, the output and the log-sum-exp; eager:
// the S x S score matrix is materialised and saved.
enum class Attention { Sdpa, Flash, Eager };
// ddp: every GPU holds everything (gradients in DDP's buckets too); zero1: optimizer states
// sharded; zero2: + gradients; fsdp: + weights, PyTorch FSDP (one unit per decoder layer, the
// root unit kept unsharded from forward to the end of backward); zero3: the same shards with
// DeepSpeed ZeRO-3's gathering (per module, a live-parameter budget and fixed buckets); hybrid:
// fsdp within a group of shard_size GPUs, replicated across groups.
enum class Sharding { Ddp, Zero1, Zero2, Fsdp, Zero3, Hybrid };
// How an MoE layer's routed experts run in training, which decides what they save for backward.
// transformers: the model's own per-expert path, k routed copies of a (gated) MLP's tensors per
// token. megablocks: kernels-community/megablocks' MegaBlocksMoeMLP, which transformers swaps in
// for gpt-oss's GptOssMLP with use_kernels=True (activation_memory.cpp says what it keeps).
enum class MoeKernel { Transformers, MegaBlocks };
// Which linear layers get adapters: all-linear = q, k, v, o, gate, up, down; attention = q, k, v, o;
// qv = q and v; or any comma list of q, k, v, o, gate, up, down.
struct LoraTargets {
  bool q = true, k = true, v = true, o = true, gate = true, up = true, down = true;
  bool mlp() const { return gate || up || down; }
  bool operator==(const LoraTargets&) const = default;
  static LoraTargets AllLinear() { return {}; }
  static LoraTargets Attention() { return {true, true, true, true, false, false, false}; }
  static LoraTargets Qv() { return {true, false, true, false, false, false, false}; }
};

struct Offload {
  bool params = false;       // FSDP CPUOffload / ZeRO-3 offload_param: weights, gradients, states on the CPU
  bool optimizer = false;    // ZeRO-Offload offload_optimizer: states on the CPU, the step there
  bool activations = false;  // saved activations to CPU RAM (torchtune enable_activation_offloading)
  bool any() const { return params || optimizer || activations; }
};

struct TrainingSettings {
  Method method = Method::Full;
  int64_t seq = 2048;
  int64_t batch = 1;  // micro-batch per GPU
  bool checkpointing = false;
  Optimizer optimizer = Optimizer::AdamW;
  bool optimizer_in_backward = false;  // each gradient applied and freed as backward produces it
  Precision precision = Precision::Bf16;
  LossKind loss = LossKind::Full;
  Attention attention = Attention::Sdpa;
  MoeKernel moe_kernel = MoeKernel::Transformers;
  bool packing = false;   // rows packed with several documents (position_ids / block mask)
  bool compile = false;   // torch.compile of the model: pointwise ops fused, recomputed in backward
  // The training loop holds the model's output until backward is done (`output = model(...);
  // output.loss.backward()`, as fsdp_qlora's train.py does), so transformers' FP32 logits
  // (LlamaForCausalLM.forward before 4.46: `logits = logits.float()`, returned in the output) live
  // through the whole backward. HF Trainer's compute_loss returns the loss alone: they die before.
  bool keep_logits = false;
  Offload offload;
  int gpus = 1;
  Sharding sharding = Sharding::Ddp;
  int shard_size = 0;     // hybrid: GPUs per sharding group; 0 = min(gpus, 8)
  // MoE: GPUs the routed experts are split over, whole experts each (Megatron-Core
  // --expert-model-parallel-size, torchtitan expert_parallel_degree, DeepSpeed-MoE ep_size); carved
  // out of the data-parallel GPUs (expert_parallel.h).
  int expert_parallel = 1;
  // FSDP/ZeRO-3: what stays gathered on the GPU (sharded_residency.h).
  bool reshard_after_forward = true;  // FSDP FULL_SHARD / fully_shard's default; false = SHARD_GRAD_OP
  int prefetch = 1;                   // FSDP units all-gathered ahead of the one computing
  bool shard_embeddings = false;      // embeddings and lm_head as their own FSDP units (torchtune custom_sharded_layers)
  // PyTorch's FSDP engine: 1 = FullyShardedDataParallel, 2 = fully_shard (torchtune, accelerate
  // fsdp_version: 2). They gather on different CUDA streams, which the reserved figure follows.
  int fsdp_version = 1;
  int64_t lora_rank = 16;
  // PEFT's lora_dropout: above 0 each adapted layer runs nn.Dropout on its input before lora_A
  // (peft/tuners/lora/layer.py, update_layer: "if lora_dropout > 0.0: nn.Dropout(p=lora_dropout)
  // else nn.Identity()"), which saves a mask and gives lora_A a new input to keep.
  double lora_dropout = 0;
  LoraTargets lora_targets = LoraTargets::AllLinear();
  bool lora_experts = true;        // MoE: adapters on every expert's linear layers too
  double adapter_bytes = 4;        // FP32 (PEFT's autocast_adapter_dtype) or BF16
  // The caching allocator's settings as PYTORCH_CUDA_ALLOC_CONF writes them (--alloc-conf),
  // checked when parsed (calc/allocator/alloc_conf.h); empty = PyTorch's defaults.
  std::string alloc_conf;

  // GPUs that weights, gradients and optimizer states are split over (1 when replicated).
  int WeightShards() const;
  int GradientShards() const;
  int StateShards() const;
  // The same for the routed experts: split over the expert-parallel group, and the sharding then
  // cuts each GPU's experts further (torchtitan's efsdp = dp_shard / ep): max(ep, shards).
  int ExpertWeightShards() const;
  int ExpertGradientShards() const;
  int ExpertStateShards() const;
  // Weights are sharded and gathered layer by layer (FSDP, ZeRO-3, hybrid, or parameter offload).
  bool GathersLayers() const;
  // QLoRA sharded by PyTorch FSDP (fsdp, hybrid, parameter offload): every GPU keeps the whole
  // model's NF4 quantisation state. bitsandbytes stores it as a plain attribute of the Params4bit
  // and of its Linear4bit (bitsandbytes/nn/modules.py, Params4bit._quantize: "self.quant_state =
  // quant_state; if self.module is not None: self.module.quant_state = quant_state"), created on
  // the GPU that quantised the weight, and FSDP flattens, shards and offloads only parameters, so
  // only the packed 4-bit data is split or moved to CPU RAM. fsdp_qlora quantises each weight on
  // every rank's GPU for exactly this reason (train.py load_and_quantize at e877dda5: "FSDP only
  // syncs parameters and buffers, so the quant_state isn't copied") and then moves only `.data`
  // to the CPU or the meta device. Not claimed for ZeRO-3: its partitioning was not read.
  bool ReplicatesNf4QuantState() const;
};

std::optional<Method> ParseMethod(const std::string& text);
std::optional<Optimizer> ParseOptimizer(const std::string& text);
std::optional<Precision> ParsePrecision(const std::string& text);
std::optional<LossKind> ParseLoss(const std::string& text);
std::optional<Attention> ParseAttention(const std::string& text);
std::optional<Sharding> ParseSharding(const std::string& text);
std::optional<MoeKernel> ParseMoeKernel(const std::string& text);
std::optional<LoraTargets> ParseLoraTargets(const std::string& text);
const char* MethodName(Method method);
const char* OptimizerName(Optimizer optimizer);
const char* PrecisionName(Precision precision);
const char* LossName(LossKind loss);
const char* AttentionName(Attention attention);
const char* ShardingName(Sharding sharding);
const char* MoeKernelName(MoeKernel kernel);
std::string LoraTargetsName(const LoraTargets& targets);
bool IsPaged(Optimizer optimizer);

}  // namespace labcheck::calc

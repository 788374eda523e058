#include "calc/training_options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sstream>

#include "calc/allocator/alloc_conf.h"
#include "calc/expert_parallel.h"

namespace labcheck::calc {
namespace {

CLI::Option* Remember(TrainingOptions& o, const std::string& knob, CLI::Option* option) {
  o.given[knob] = option;
  return option;
}

bool Given(const TrainingOptions& o, const std::string& knob) {
  auto it = o.given.find(knob);
  return it != o.given.end() && it->second != nullptr && it->second->count() > 0;
}

Result<Offload> ParseOffload(const std::string& text) {
  Offload offload;
  std::stringstream list(text);
  std::string part;
  while (std::getline(list, part, ',')) {
    if (part == "none" || part.empty()) continue;
    if (part == "params") offload.params = true;
    else if (part == "optimizer") offload.optimizer = true;
    else if (part == "activations") offload.activations = true;
    else return Status::Error(part);
  }
  return offload;
}

}  // namespace

void AddTrainingOptions(CLI::App* sub, TrainingOptions& o, bool with_batch_and_gpus, Lang lang) {
  Remember(o, "method", sub->add_option("--method", o.method, "full | lora | qlora")->check(CLI::IsMember({"full", "lora", "qlora"})));
  sub->add_option("--seq", o.seq, T("длина последовательности, токенов", "sequence length, tokens").In(lang))->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  if (with_batch_and_gpus) {
    sub->add_option("--batch", o.batch, T("микробатч на одну GPU", "micro-batch per GPU").In(lang))->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
    Remember(o, "gpus", sub->add_option("--gpus", o.gpus, T("сколько GPU обучают вместе (см. --sharding)", "GPUs training together (see --sharding)").In(lang))->check(CLI::Range(1, 1024)));
  }
  Remember(o, "checkpointing", sub->add_flag("--checkpointing,!--no-checkpointing", o.checkpointing,
                                             T("gradient checkpointing каждого слоя декодера (по умолчанию: включён для qlora, иначе выключен)", "gradient checkpointing of every decoder layer (default: on for qlora, off otherwise)").In(lang)));
  Remember(o, "optimizer", sub->add_option("--optimizer", o.optimizer, "adamw (foreach) | adamw-fused | adamw8bit | paged-adamw | paged-adamw8bit | sgd")
                               ->check(CLI::IsMember({"adamw", "adamw-fused", "adamw8bit", "paged-adamw", "paged-adamw8bit", "sgd"})));
  Remember(o, "optimizer_in_backward", sub->add_flag("--optimizer-in-backward", o.optimizer_in_backward,
                                                     T("шаг оптимизатора внутри обратного прохода: без полного буфера градиентов", "apply the optimizer in the backward pass: no full gradient buffer").In(lang)));
  Remember(o, "precision", sub->add_option("--precision", o.precision, T("bf16 (всё в BF16, как в уроке) | mixed (мастер-веса в FP32)", "bf16 (all BF16, as the lesson) | mixed (FP32 master weights)").In(lang))
                               ->check(CLI::IsMember({"bf16", "mixed"})));
  Remember(o, "loss", sub->add_option("--loss", o.loss, T("full (все логиты в FP32) | chunked (torchtune) | fused (Liger, cut-cross-entropy, Unsloth)", "full (whole logits in FP32) | chunked (torchtune) | fused (Liger, cut-cross-entropy, Unsloth)").In(lang))
                          ->check(CLI::IsMember({"full", "chunked", "fused"})));
  Remember(o, "attention", sub->add_option("--attention", o.attention, T("sdpa | flash | eager (хранит матрицу оценок S x S)", "sdpa | flash | eager (materialises S x S scores)").In(lang))
                               ->check(CLI::IsMember({"sdpa", "flash", "eager"})));
  Remember(o, "moe_kernel", sub->add_option("--moe-kernel", o.moe_kernel,
                                            T("MoE, полное обучение: transformers (свой путь модели) | megablocks (MegaBlocksMoeMLP из kernels-community, use_kernels=True для gpt-oss)",
                                              "MoE, full fine-tuning: transformers (the model's own path) | megablocks (kernels-community's MegaBlocksMoeMLP, use_kernels=True for gpt-oss)").In(lang))
                                ->check(CLI::IsMember({"transformers", "megablocks"})));
  Remember(o, "packing", sub->add_flag("--packing", o.packing, T("упаковка: несколько документов в строке (каждая строка заполнена)", "rows packed with several documents (every row full)").In(lang)));
  Remember(o, "compile", sub->add_flag("--compile", o.compile, T("torch.compile: поэлементные операции пересчитываются в обратном проходе, а не хранятся", "torch.compile: pointwise ops recomputed in backward, not saved").In(lang)));
  Remember(o, "keep_logits", sub->add_flag("--keep-logits", o.keep_logits,
                                            T("цикл держит выход модели (FP32-логиты transformers) до конца backward, как train.py fsdp_qlora",
                                              "the loop holds the model output (transformers' FP32 logits) until backward ends, as fsdp_qlora's train.py does").In(lang)));
  Remember(o, "offload", sub->add_option("--offload", o.offload, T("none | список через запятую из params, optimizer, activations (выгрузка на CPU)", "none | comma list of params, optimizer, activations (CPU offload)").In(lang)));
  Remember(o, "sharding", sub->add_option("--sharding", o.sharding, T("ddp (копия на каждой GPU) | zero1 | zero2 | fsdp (PyTorch) | zero3 (DeepSpeed) | hybrid", "ddp (replicated) | zero1 | zero2 | fsdp (PyTorch) | zero3 (DeepSpeed) | hybrid").In(lang))
                              ->check(CLI::IsMember({"ddp", "zero1", "zero2", "fsdp", "zero3", "hybrid"})));
  Remember(o, "reshard_after_forward", sub->add_option("--reshard-after-forward", o.reshard_after_forward,
                                                       T("FSDP: yes (FULL_SHARD) | no (SHARD_GRAD_OP: слои собраны от forward до backward)", "FSDP: yes (FULL_SHARD) | no (SHARD_GRAD_OP: layers stay gathered from forward to backward)").In(lang))
                                           ->check(CLI::IsMember({"yes", "no"})));
  Remember(o, "fsdp_version", sub->add_option("--fsdp-version", o.fsdp_version,
                                              T("FSDP: движок 1 (FullyShardedDataParallel) | 2 (fully_shard: torchtune, accelerate fsdp_version: 2)",
                                                "FSDP: 1 (FullyShardedDataParallel) | 2 (fully_shard: torchtune, accelerate fsdp_version: 2)").In(lang))
                                  ->check(CLI::IsMember({"1", "2"})));
  Remember(o, "prefetch", sub->add_option("--prefetch", o.prefetch, T("FSDP: сколько слоёв собирается заранее", "FSDP: layers all-gathered ahead").In(lang))->check(CLI::Range(0, 64)));
  Remember(o, "shard_embeddings", sub->add_flag("--shard-embeddings", o.shard_embeddings,
                                                T("FSDP: эмбеддинги и lm_head — отдельные блоки (torchtune custom_sharded_layers), а не в корневом", "FSDP: embeddings and lm_head as their own units (torchtune custom_sharded_layers), not in the root unit").In(lang)));
  sub->add_option("--shard-size", o.shard_size, T("hybrid: GPU в одной группе шардирования (по умолчанию min(gpus, 8))", "hybrid sharding: GPUs per sharding group (default min(gpus, 8))").In(lang))->check(CLI::Range(1, 1024));
  Remember(o, "expert_parallel", sub->add_option("--expert-parallel", o.expert_parallel,
                                                 T("MoE: на сколько GPU делятся маршрутизируемые эксперты, целыми экспертами (Megatron-Core --expert-model-parallel-size, torchtitan expert_parallel_degree, DeepSpeed-MoE ep_size)",
                                                   "MoE: GPUs the routed experts are split over, whole experts each (Megatron-Core --expert-model-parallel-size, torchtitan expert_parallel_degree, DeepSpeed-MoE ep_size)").In(lang))
                                     ->check(CLI::Range(1, 1024)));
  Remember(o, "alloc_conf", sub->add_option("--alloc-conf", o.alloc_conf,
                                            T("настройки аллокатора PyTorch в синтаксисе PYTORCH_CUDA_ALLOC_CONF, напр. expandable_segments:True",
                                              "PyTorch allocator settings in PYTORCH_CUDA_ALLOC_CONF syntax, e.g. expandable_segments:True").In(lang)));
  Remember(o, "lora_rank", sub->add_option("--lora-rank", o.lora_rank, T("ранг LoRA", "LoRA rank").In(lang))->check(CLI::Range(int64_t{1}, int64_t{4096})));
  Remember(o, "lora_dropout", sub->add_option("--lora-dropout", o.lora_dropout,
                                              T("PEFT lora_dropout: доля, 0 — без dropout", "PEFT lora_dropout: a fraction, 0 = none").In(lang))
                                  ->check(CLI::Range(0.0, 0.99)));
  Remember(o, "lora_targets", sub->add_option("--lora-targets", o.lora_targets,
                                              T("all-linear | attention (q,k,v,o) | qv | список вроде q,k,v или q_proj,v_proj,down_proj", "all-linear | attention (q,k,v,o) | qv | a list such as q,k,v or q_proj,v_proj,down_proj").In(lang)));
  Remember(o, "lora_experts", sub->add_option("--lora-experts", o.lora_experts, T("MoE: адаптеры и на каждом эксперте (yes | no)", "MoE: adapters on every expert too (yes | no)").In(lang))
                                  ->check(CLI::IsMember({"yes", "no"})));
  Remember(o, "adapter_dtype", sub->add_option("--adapter-dtype", o.adapter_dtype, "fp32 (PEFT) | bf16 (torchtune, Unsloth)")
                                   ->check(CLI::IsMember({"fp32", "bf16"})));
}

Result<TrainingSettings> ToTrainingSettings(const TrainingOptions& o, Lang lang) {
  TrainingSettings s;
  s.method = *ParseMethod(o.method);
  s.optimizer = *ParseOptimizer(o.optimizer);
  s.precision = *ParsePrecision(o.precision);
  s.loss = *ParseLoss(o.loss);
  s.attention = *ParseAttention(o.attention);
  s.moe_kernel = *ParseMoeKernel(o.moe_kernel);
  s.sharding = *ParseSharding(o.sharding);
  const auto targets = ParseLoraTargets(o.lora_targets);
  if (!targets) {
    return Status::Error(T(fmt::format("--lora-targets «{}»: ожидается all-linear, attention, qv или список из q,k,v,o,gate,up,down", o.lora_targets),
                           fmt::format("--lora-targets \"{}\": expected all-linear, attention, qv or a list of q,k,v,o,gate,up,down", o.lora_targets)).In(lang));
  }
  s.lora_targets = *targets;
  s.lora_experts = o.lora_experts == "yes";
  s.adapter_bytes = o.adapter_dtype == "fp32" ? 4 : 2;
  s.seq = o.seq;
  s.batch = o.batch;
  s.gpus = o.gpus;
  s.shard_size = o.shard_size;
  s.expert_parallel = o.expert_parallel;
  s.reshard_after_forward = o.reshard_after_forward == "yes";
  s.prefetch = o.prefetch;
  s.shard_embeddings = o.shard_embeddings;
  s.fsdp_version = o.fsdp_version == "2" ? 2 : 1;
  s.lora_rank = o.lora_rank;
  s.lora_dropout = o.lora_dropout;
  // QLoRA recipes checkpoint by default: PEFT's prepare_model_for_kbit_training(use_gradient_checkpointing=True),
  // Unsloth's use_gradient_checkpointing="unsloth". Full and LoRA follow HF TrainingArguments (off).
  s.checkpointing = Given(o, "checkpointing") ? o.checkpointing : s.method == Method::Qlora;
  s.optimizer_in_backward = o.optimizer_in_backward;
  s.packing = o.packing;
  s.compile = o.compile;
  s.keep_logits = o.keep_logits;
  s.alloc_conf = o.alloc_conf;
  if (const auto conf = allocator::ParseAllocConf(o.alloc_conf, allocator::AllocatorConstants::Builtin(), lang); !conf.ok()) {
    return Status::Error(T(conf.status().message() + " (синтаксис PYTORCH_CUDA_ALLOC_CONF: ключ:значение через запятую)",
                           conf.status().message() + " (PYTORCH_CUDA_ALLOC_CONF syntax: comma-separated key:value)").In(lang));
  }
  if (s.keep_logits && s.loss != LossKind::Full) {
    return Status::Error(T("--keep-logits — это FP32-логиты, которые transformers возвращает в выходе модели; с --loss chunked или fused их нет: уберите --keep-logits",
                           "--keep-logits is the FP32 logits transformers returns in the model output; with --loss chunked or fused there are none: drop --keep-logits").In(lang));
  }
  if (s.moe_kernel == MoeKernel::MegaBlocks && s.method != Method::Full) {
    // What it saves was read for trained experts (activation_memory.cpp); PEFT does not wrap its 3-D expert weights.
    return Status::Error(T("--moe-kernel megablocks разобран только для полного обучения (эксперты обучаются): уберите его или задайте --method full",
                           "--moe-kernel megablocks was read for full fine-tuning only (the experts trained): drop it or use --method full").In(lang));
  }
  auto offload = ParseOffload(o.offload);
  if (!offload.ok()) {
    return Status::Error(T(fmt::format("--offload «{}»: ожидается none или список из params, optimizer, activations через запятую", o.offload),
                                     fmt::format("--offload \"{}\": expected none or a comma list of params, optimizer, activations", o.offload)).In(lang));
  }
  s.offload = offload.value();
  const bool replicated = s.sharding == Sharding::Ddp;
  if (s.gpus > 1 && replicated && s.offload.params) {
    return Status::Error(T("--offload params выгружает шарды весов (FSDP CPUOffload, ZeRO-3 offload_param): добавьте --sharding fsdp",
                                     "--offload params offloads weight shards (FSDP CPUOffload, ZeRO-3 offload_param): add --sharding fsdp").In(lang));
  }
  if (s.gpus > 1 && replicated && s.offload.optimizer) {
    return Status::Error(T("--offload optimizer — это ZeRO-Offload: добавьте --sharding zero1, zero2 или fsdp",
                                     "--offload optimizer is ZeRO-Offload: add --sharding zero1, zero2 or fsdp").In(lang));
  }
  if (s.sharding == Sharding::Hybrid && s.gpus > 1 && s.gpus % s.WeightShards() != 0) {
    return Status::Error(T(fmt::format("--shard-size {} не делит --gpus {}: гибридное шардирование делит карты на равные группы", s.WeightShards(), s.gpus),
                                     fmt::format("--shard-size {} does not divide --gpus {}: hybrid sharding splits the cards into equal groups", s.WeightShards(), s.gpus)).In(lang));
  }
  if (Given(o, "fsdp_version") && s.sharding != Sharding::Fsdp && s.sharding != Sharding::Hybrid) {
    return Status::Error(T("--fsdp-version выбирает движок PyTorch FSDP: добавьте --sharding fsdp или hybrid",
                           "--fsdp-version picks PyTorch's FSDP engine: add --sharding fsdp or hybrid").In(lang));
  }
  if (auto error = ExpertParallelLayoutError(s, o.given.count("gpus") > 0)) return Status::Error(error->In(lang));
  if (s.optimizer_in_backward && s.gpus > 1 && replicated) {
    return Status::Error(T("--optimizer-in-backward с DDP не сходится: градиенты нужно сначала усреднить; используйте --sharding fsdp",
                                     "--optimizer-in-backward does not work with DDP: gradients must be averaged first; use --sharding fsdp").In(lang));
  }
  return s;
}

std::vector<DefaultTaken> DefaultsTaken(const TrainingOptions& o, const TrainingSettings& s, bool routed_experts) {
  std::vector<DefaultTaken> out;
  // The report prints knob and value only; whose default each is goes to --json and the docs.
  auto take = [&](const std::string& knob, const std::string& value, const std::string& follows) {
    if (!Given(o, knob)) out.push_back({knob, value, follows});
  };
  const bool lora = s.method != Method::Full;
  take("optimizer", o.optimizer, "torch.optim.AdamW, which PyTorch runs as foreach on CUDA (HF Trainer optim=adamw_torch)");
  take("optimizer_in_backward", "off", "HF Trainer and TRL have no optimizer-in-backward");
  take("loss", o.loss, "transformers ForCausalLMLoss (HF Trainer, TRL SFTTrainer)");
  take("attention", o.attention, "transformers attn_implementation=sdpa (its default since 4.36)");
  if (s.method == Method::Qlora) {
    take("checkpointing", "on", "PEFT prepare_model_for_kbit_training(use_gradient_checkpointing=True), Unsloth");
  } else {
    take("checkpointing", "off", "HF TrainingArguments gradient_checkpointing=False");
  }
  take("compile", "off", "HF TrainingArguments torch_compile=False");
  take("packing", "off", "TRL SFTConfig packing=False (rows padded to --seq: the same memory)");
  take("offload", "none", "HF Trainer / accelerate without a DeepSpeed or FSDP offload config");
  if (s.method == Method::Full) take("precision", o.precision, "the lesson's arithmetic: weights, gradients and states in BF16");
  if (s.method == Method::Full && routed_experts) take("moe_kernel", o.moe_kernel, "transformers from_pretrained(use_kernels=False): the model's own expert code");
  if (s.gpus > 1) {
    take("sharding", o.sharding, "torchrun / accelerate launch without an FSDP or DeepSpeed config: DistributedDataParallel");
  }
  if (s.GathersLayers() && s.sharding != Sharding::Zero3) {
    take("reshard_after_forward", o.reshard_after_forward, "fully_shard(reshard_after_forward=True), FSDP1 ShardingStrategy.FULL_SHARD");
    take("prefetch", std::to_string(o.prefetch), "FSDP2's implicit prefetch of the next unit, FSDP1 BackwardPrefetch.BACKWARD_PRE");
    take("fsdp_version", "1", "FullyShardedDataParallel (FSDP1), as fsdp_qlora's train.py and the PEFT docs' accelerate config run it; fully_shard is --fsdp-version 2");
    take("shard_embeddings", "off", "accelerate TRANSFORMER_BASED_WRAP and torchtune without custom_sharded_layers: embeddings and lm_head in the root unit");
  }
  if (lora) {
    take("lora_rank", std::to_string(o.lora_rank), "Unsloth's notebooks (PEFT's own default is 8)");
    take("lora_targets", o.lora_targets, "QLoRA paper, Unsloth, LlamaFactory lora_target=all, TRL target_modules=all-linear (PEFT alone: q,v for Llama)");
    take("lora_dropout", "0", "PEFT LoraConfig(lora_dropout=0.0), torchtune's recipes, Unsloth");
    take("adapter_dtype", o.adapter_dtype, "PEFT autocast_adapter_dtype=True: FP32 adapters on a BF16 base (since PEFT 0.12)");
    take("lora_experts", o.lora_experts, "PEFT all-linear matches every expert's nn.Linear (transformers 4.x MoE)");
  }
  return out;
}

nlohmann::json TrainingSettingsJson(const TrainingSettings& s) {
  const bool lora = s.method != Method::Full;
  nlohmann::json offload = nlohmann::json::array();
  if (s.offload.params) offload.push_back("params");
  if (s.offload.optimizer) offload.push_back("optimizer");
  if (s.offload.activations) offload.push_back("activations");
  return {{"method", MethodName(s.method)},
          {"optimizer", OptimizerName(s.optimizer)},
          {"optimizer_in_backward", s.optimizer_in_backward},
          {"precision", PrecisionName(s.precision)},
          {"seq", s.seq},
          {"batch", s.batch},
          {"checkpointing", s.checkpointing},
          {"loss", LossName(s.loss)},
          {"attention", AttentionName(s.attention)},
          {"moe_kernel", MoeKernelName(s.moe_kernel)},
          {"packing", s.packing},
          {"compile", s.compile},
          {"keep_logits", s.keep_logits},
          {"offload", offload},
          {"gpus", s.gpus},
          {"sharding", s.gpus > 1 ? nlohmann::json(ShardingName(s.sharding)) : nlohmann::json(nullptr)},
          {"shard_gpus", {{"weights", s.WeightShards()}, {"gradients", s.GradientShards()}, {"optimizer_states", s.StateShards()}}},
          {"expert_parallel", s.expert_parallel},
          {"expert_shard_gpus", s.expert_parallel > 1 ? nlohmann::json{{"weights", s.ExpertWeightShards()}, {"gradients", s.ExpertGradientShards()}, {"optimizer_states", s.ExpertStateShards()}} : nlohmann::json(nullptr)},
          {"gathering", s.GathersLayers() ? nlohmann::json{{"reshard_after_forward", s.reshard_after_forward}, {"prefetch", s.prefetch}, {"shard_embeddings", s.shard_embeddings}, {"fsdp_version", s.fsdp_version}} : nlohmann::json(nullptr)},
          {"lora_rank", lora ? nlohmann::json(s.lora_rank) : nlohmann::json(nullptr)},
          {"lora_targets", lora ? nlohmann::json(LoraTargetsName(s.lora_targets)) : nlohmann::json(nullptr)},
          {"lora_dropout", lora ? nlohmann::json(s.lora_dropout) : nlohmann::json(nullptr)},
          {"lora_experts", lora ? nlohmann::json(s.lora_experts) : nlohmann::json(nullptr)},
          {"adapter_dtype", lora ? nlohmann::json(s.adapter_bytes > 2 ? "fp32" : "bf16") : nlohmann::json(nullptr)}};
}

nlohmann::json DefaultsJson(const std::vector<DefaultTaken>& defaults) {
  nlohmann::json out = nlohmann::json::array();
  for (const DefaultTaken& d : defaults) out.push_back({{"knob", d.knob}, {"value", d.value}, {"follows", d.follows}});
  return out;
}

std::string DefaultsLine(const std::vector<DefaultTaken>& defaults, Lang lang) {
  std::string line;
  for (const DefaultTaken& d : defaults) {
    if (!line.empty()) line += ", ";
    line += d.knob + " " + d.value;
  }
  return line + T(" — как в HF Trainer/PEFT/TRL; чьё умолчание какое: --json (defaults_taken) и docs/calculators.md",
                  " — as HF Trainer/PEFT/TRL do; whose default each is: --json (defaults_taken) and docs/calculators.md").In(lang);
}

std::string SettingsLine(const TrainingSettings& s) {
  std::string line = fmt::format("{}, {}", MethodName(s.method), OptimizerName(s.optimizer));
  if (s.optimizer_in_backward) line += " in backward";
  if (s.method == Method::Full) line += fmt::format(", {}", PrecisionName(s.precision));
  line += fmt::format(", seq {} × batch {}, loss {}, {}", s.seq, s.batch, LossName(s.loss), AttentionName(s.attention));
  if (s.moe_kernel != MoeKernel::Transformers) line += fmt::format(", MoE kernel {}", MoeKernelName(s.moe_kernel));
  if (s.checkpointing) line += ", gradient checkpointing";
  if (s.compile) line += ", torch.compile";
  if (s.keep_logits) line += ", logits kept through backward";
  if (s.packing) line += ", packing";
  if (s.offload.any()) {
    line += ", offload";
    if (s.offload.params) line += " params";
    if (s.offload.optimizer) line += " optimizer";
    if (s.offload.activations) line += " activations";
  }
  if (s.method != Method::Full) {
    line += fmt::format(", LoRA r{} {} {}", s.lora_rank, LoraTargetsName(s.lora_targets), s.adapter_bytes > 2 ? "fp32" : "bf16");
    if (s.lora_dropout > 0) line += fmt::format(" dropout {:g}", s.lora_dropout);
  }
  if (s.gpus > 1) {
    line += fmt::format(", {} GPUs {}", s.gpus, ShardingName(s.sharding));
    if (s.sharding == Sharding::Hybrid) line += fmt::format(" (groups of {})", s.WeightShards());
  }
  if (s.expert_parallel > 1) line += fmt::format(", expert parallel {}", s.expert_parallel);
  if (s.GathersLayers() && s.sharding != Sharding::Zero3) {
    if (!s.reshard_after_forward) line += ", no reshard after forward";
    if (s.prefetch != 1) line += fmt::format(", prefetch {}", s.prefetch);
    if (s.shard_embeddings) line += ", embeddings sharded apart";
    if (s.fsdp_version == 2) line += ", FSDP2";
  }
  return line;
}

}  // namespace labcheck::calc

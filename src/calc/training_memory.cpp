#include "calc/training_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "calc/activation_memory.h"
#include "calc/byte_units.h"
#include "calc/expert_parallel.h"
#include "calc/param_count.h"
#include "calc/sharded_residency.h"

namespace labcheck::calc {
namespace {

double OptimizerStatesPerParam(Optimizer optimizer, double state_bytes) {
  switch (optimizer) {
    case Optimizer::AdamW:
    case Optimizer::AdamWFused:
    case Optimizer::PagedAdamW: return 2 * state_bytes;  // exp_avg and exp_avg_sq in the parameter's dtype
    case Optimizer::AdamW8bit:
    case Optimizer::PagedAdamW8bit: return 2;            // bitsandbytes: two 8-bit states (block scales negligible)
    case Optimizer::Sgd: return 0;                       // plain SGD without momentum keeps no state
  }
  return 0;
}

// torch.optim.AdamW (foreach, PyTorch's default on CUDA) computes sqrt(exp_avg_sq) for all
// parameters at once; fused=True and bitsandbytes update each tensor in place; SGD adds in place.
double StepBufferPerParam(Optimizer optimizer, double state_bytes) {
  return optimizer == Optimizer::AdamW ? state_bytes : 0;
}

Text OptimizerNote(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::AdamW: return T("AdamW: два состояния на параметр", "AdamW: two states per parameter");
    case Optimizer::AdamWFused: return T("AdamW fused: два состояния на параметр, шаг одним ядром", "fused AdamW: two states per parameter, one-kernel step");
    case Optimizer::AdamW8bit: return T("8-битный AdamW (bitsandbytes): 2 байта на параметр", "8-bit AdamW (bitsandbytes): 2 bytes per parameter");
    case Optimizer::PagedAdamW: return T("paged AdamW (bitsandbytes): два FP32-состояния в unified memory, вне аллокатора PyTorch",
                                         "paged AdamW (bitsandbytes): two FP32 states in unified memory, outside PyTorch's allocator");
    case Optimizer::PagedAdamW8bit: return T("paged AdamW 8-бит (bitsandbytes): 2 байта на параметр в unified memory, вне аллокатора PyTorch",
                                             "paged 8-bit AdamW (bitsandbytes): 2 bytes per parameter in unified memory, outside PyTorch's allocator");
    case Optimizer::Sgd: return T("SGD без момента: состояний нет", "SGD without momentum: no state");
  }
  return {};
}

Text ShardNote(int shards) {
  if (shards <= 1) return Text("");
  return T(fmt::format(" / {} GPU", shards), fmt::format(" / {} GPUs", shards));
}

Text AttentionNote(const TrainingSettings& s) {
  if (s.attention == Attention::Eager) {
    return T(fmt::format("eager-внимание хранит матрицу S×S ({}²) на голову", s.seq),
             fmt::format("eager attention keeps the S×S scores ({}²) per head", s.seq));
  }
  return T("fused attention (SDPA/FlashAttention) без S²", "fused attention (SDPA/FlashAttention), no S² term");
}

Text LossNote(const TrainingSettings& s) {
  switch (s.loss) {
    case LossKind::Full:
      if (s.keep_logits) return T("12 байт × словарь на токен: FP32 log-softmax и его градиент (логиты — отдельной строкой)",
                                  "12 bytes × vocabulary per token: FP32 log-softmax and its gradient (the logits on their own line)");
      return T("14 байт × словарь на токен: BF16-логиты, FP32 log-softmax и его градиент",
               "14 bytes × vocabulary per token: BF16 logits, FP32 log-softmax and its gradient");
    case LossKind::Chunked: return T("по частям: 6 байт × словарь на токен (BF16-логиты и FP32 log-softmax всех частей)",
                                     "chunked: 6 bytes × vocabulary per token (BF16 logits and FP32 log-softmax of every chunk)");
    case LossKind::Fused: return T("fused linear + cross-entropy: логиты не хранятся, 10 байт × hidden на токен",
                                   "fused linear + cross-entropy: no logits kept, 10 bytes × hidden per token");
  }
  return {};
}

}  // namespace

const MemoryComponent* TrainingMemory::Find(const std::string& id) const {
  for (const MemoryComponent& c : components) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

namespace {

// Where the persistent state lives and into how many shards it is cut.
struct Placement {
  bool params_on_cpu = false;  // FSDP offload_params keeps weights, gradients and states on the CPU (on one GPU too)
  double weight_shards = 1;
  double grad_shards = 1;
  double state_shards = 1;
  // The routed experts' own split under --expert-parallel (expert_parallel.h); as above without it.
  double expert_weight_shards = 1;
  double expert_grad_shards = 1;
  double expert_state_shards = 1;
  MemoryPhase weight_phase = MemoryPhase::Always;
};

Placement PlacementOf(const TrainingSettings& s) {
  Placement p;
  p.params_on_cpu = s.offload.params;
  p.weight_shards = p.params_on_cpu ? std::max(1, s.gpus) : s.WeightShards();
  p.grad_shards = p.params_on_cpu ? std::max(1, s.gpus) : s.GradientShards();
  p.state_shards = p.params_on_cpu ? std::max(1, s.gpus) : s.StateShards();
  p.expert_weight_shards = std::max(p.weight_shards, static_cast<double>(s.ExpertWeightShards()));
  p.expert_grad_shards = std::max(p.grad_shards, static_cast<double>(s.ExpertGradientShards()));
  p.expert_state_shards = std::max(p.state_shards, static_cast<double>(s.ExpertStateShards()));
  p.weight_phase = p.params_on_cpu ? MemoryPhase::Cpu : MemoryPhase::Always;
  return p;
}

void Add(TrainingMemory& m, std::string id, Text label, std::optional<double> bytes, Text note, MemoryPhase phase) {
  m.components.push_back({std::move(id), std::move(label), bytes, std::move(note), phase});
}

// What the optimizer trains and in which dtypes its gradients and states are kept.
struct Trainable {
  double params = 0;
  double experts = 0;  // the part in routed experts (or their adapters), split by --expert-parallel
  double state_bytes = kBf16;
  double grad_bytes = kBf16;
};

std::optional<double> PerTrainable(const TrainingMemory& m, const Trainable& t, double bytes_per_param, double shards,
                                   double expert_shards) {
  if (!m.trainable_known) return std::nullopt;
  return SplitWithExperts(t.params, t.experts, shards, expert_shards) * bytes_per_param;
}

// " / 8 GPUs; routed experts / 8 GPUs" when EP splits the experts differently from the rest.
Text ExpertShardNote(double shards, double expert_shards) {
  if (expert_shards <= shards) return Text("");
  return T(fmt::format("; маршрутизируемые эксперты / {:.0f} GPU", expert_shards), fmt::format("; routed experts / {:.0f} GPUs", expert_shards));
}

// NF4 layers and the BF16 rest; under FSDP the quantisation state stays whole on every GPU
// (TrainingSettings::ReplicatesNf4QuantState), so only the packed data is sharded or offloaded.
void AddQloraWeights(TrainingMemory& m, const ModelInput& model, const TrainingSettings& s, const CalcConstants& k, const Placement& p) {
  const std::optional<ParamCounts> counts = model.counts();
  const double n = static_cast<double>(model.total_params());
  const double quantized = counts ? static_cast<double>(counts->quantizable()) : n;
  const double kept = counts ? n - quantized : 0;
  const bool whole_state = counts && s.ReplicatesNf4QuantState();
  const double bits = whole_state ? k.nf4_data_bits : k.nf4_bits;
  const Text expert_note = ExpertShardNote(p.weight_shards, p.expert_weight_shards);
  const Text dq = whole_state ? T("только упакованные коды, состояние квантования ниже", "the packed codes alone, the quantisation state below")
                              : T("двойное квантование", "double quantisation");
  Add(m, "weights", T("Веса (NF4 + BF16)", "Weights (NF4 + BF16)"),
      SplitWithExperts(quantized, RoutedExpertParams(model), p.weight_shards, p.expert_weight_shards) * bits / 8 + kept * kBf16 / p.weight_shards,
      counts ? T(fmt::format("{} в NF4 по {:.3f} бита ({}) + {} в BF16 (эмбеддинги, lm_head, нормы){}{}",
                             FormatParams(quantized), bits, dq.ru, FormatParams(kept), ShardNote(p.weight_shards).ru, expert_note.ru),
                 fmt::format("{} in NF4 at {:.3f} bits ({}) + {} in BF16 (embeddings, lm_head, norms){}{}",
                             FormatParams(quantized), bits, dq.en, FormatParams(kept), ShardNote(p.weight_shards).en, expert_note.en))
             : T(fmt::format("все параметры в NF4 по {:.3f} бита; без архитектуры не отделить слои, что остаются в BF16", k.nf4_bits),
                 fmt::format("all parameters in NF4 at {:.3f} bits; without the architecture the BF16 layers cannot be told apart", k.nf4_bits)),
      p.weight_phase);
  if (!whole_state) return;
  Add(m, "nf4_quant_state", T("Состояние квантования NF4 (на каждой GPU)", "NF4 quantisation state (on every GPU)"),
      quantized * (k.nf4_bits - k.nf4_data_bits) / 8,
      T(fmt::format("absmax и вложенный absmax bitsandbytes ({:.3f} бита на вес у {}): не параметр, FSDP его не шардирует и не выгружает в RAM",
                    k.nf4_bits - k.nf4_data_bits, FormatParams(quantized)),
        fmt::format("bitsandbytes' absmax and nested absmax ({:.3f} bits per weight of {}): no parameter, so FSDP neither shards nor offloads it",
                    k.nf4_bits - k.nf4_data_bits, FormatParams(quantized))),
      MemoryPhase::Always);
}

void AddWeights(TrainingMemory& m, const ModelInput& model, const TrainingSettings& s, const CalcConstants& k, const Placement& p) {
  if (s.method == Method::Qlora) {
    AddQloraWeights(m, model, s, k, p);
    return;
  }
  const double n = static_cast<double>(model.total_params());
  const double experts = RoutedExpertParams(model);
  const Text expert_note = ExpertShardNote(p.weight_shards, p.expert_weight_shards);
  const double bytes = (s.method == Method::Full && s.precision == Precision::Mixed) ? kFp32 : kBf16;
  Add(m, "weights", T("Веса", "Weights"), SplitWithExperts(n, experts, p.weight_shards, p.expert_weight_shards) * bytes,
      T(fmt::format("{} параметров × {:.0f} байта{}{}", FormatParams(n), bytes, ShardNote(p.weight_shards).ru, expert_note.ru),
        fmt::format("{} parameters × {:.0f} bytes{}{}", FormatParams(n), bytes, ShardNote(p.weight_shards).en, expert_note.en)),
      p.weight_phase);
}

// Trainable parameters: all of them, or the adapters (added as a component).
Trainable AddTrainable(TrainingMemory& m, const ModelInput& model, const TrainingSettings& s, const Placement& p) {
  const bool mixed = s.precision == Precision::Mixed;
  Trainable t{static_cast<double>(model.total_params()), RoutedExpertParams(model), mixed ? kFp32 : kBf16, mixed ? kFp32 : kBf16};
  if (s.method != Method::Full) {
    t.state_bytes = s.adapter_bytes;
    t.grad_bytes = s.adapter_bytes;
    const char* dtype = s.adapter_bytes > kBf16 ? "FP32" : "BF16";
    if (model.arch) {
      t.params = static_cast<double>(LoraParams(*model.arch, s.lora_rank, s.lora_targets, s.lora_experts));
      t.experts = RoutedExpertAdapterParams(model, s);
      const bool moe = model.arch->moe.enabled() && s.lora_targets.mlp();
      const std::string experts_ru = moe ? (s.lora_experts ? ", и на каждом эксперте" : ", эксперты без адаптеров") : "";
      const std::string experts_en = moe ? (s.lora_experts ? ", every expert too" : ", experts left out") : "";
      Add(m, "adapters", T("LoRA-адаптеры", "LoRA adapters"), SplitWithExperts(t.params, t.experts, p.weight_shards, p.expert_weight_shards) * s.adapter_bytes,
          T(fmt::format("ранг {} на {}{}: {} параметров в {}", s.lora_rank, LoraTargetsName(s.lora_targets), experts_ru,
                        FormatParams(t.params), dtype),
            fmt::format("rank {} on {}{}: {} parameters in {}", s.lora_rank, LoraTargetsName(s.lora_targets), experts_en,
                        FormatParams(t.params), dtype)),
          p.weight_phase);
    } else {
      m.trainable_known = false;
      Add(m, "adapters", T("LoRA-адаптеры", "LoRA adapters"), std::nullopt,
          T("нужна архитектура: размеры слоёв", "needs the architecture: layer shapes"), MemoryPhase::Always);
    }
  }
  m.trainable_params = m.trainable_known ? static_cast<int64_t>(t.params) : 0;
  return t;
}

void AddOptimizerStates(TrainingMemory& m, const TrainingSettings& s, const Placement& p, const Trainable& t) {
  const bool states_on_cpu = p.params_on_cpu || s.offload.optimizer;
  const MemoryPhase state_phase = states_on_cpu ? MemoryPhase::Cpu : IsPaged(s.optimizer) ? MemoryPhase::Paged : MemoryPhase::Always;
  Add(m, "optimizer_states", T("Состояния оптимизатора", "Optimizer states"),
      PerTrainable(m, t, OptimizerStatesPerParam(s.optimizer, t.state_bytes), p.state_shards, p.expert_state_shards),
      Text(OptimizerNote(s.optimizer).ru + ShardNote(p.state_shards).ru + ExpertShardNote(p.state_shards, p.expert_state_shards).ru + (states_on_cpu ? ", в RAM (offload)" : ""),
           OptimizerNote(s.optimizer).en + ShardNote(p.state_shards).en + ExpertShardNote(p.state_shards, p.expert_state_shards).en + (states_on_cpu ? ", in CPU RAM (offload)" : "")),
      state_phase);
}

// Gradients: all of them before the step, or one tensor at a time when the optimizer runs in
// the backward pass (the largest is the embedding or lm_head for full fine-tuning).
void AddGradients(TrainingMemory& m, const ModelInput& model, const TrainingSettings& s, const Placement& p, const Trainable& t) {
  const std::optional<ParamCounts> counts = model.counts();
  if (s.optimizer_in_backward) {
    std::optional<double> largest;
    if (m.trainable_known) {
      double biggest = t.params;
      if (counts) {
        biggest = s.method == Method::Full
                      ? static_cast<double>(std::max<int64_t>(counts->embedding, counts->largest_linear))
                      : static_cast<double>(s.lora_rank) * static_cast<double>(std::max(model.arch->hidden, model.arch->intermediate));
      }
      largest = std::min(biggest, t.params) * t.grad_bytes / p.grad_shards;
    }
    Add(m, "gradients", T("Градиенты", "Gradients"), largest,
        T("шаг оптимизатора в backward: живёт один градиент, самый большой тензор",
          "optimizer step in backward: one gradient alive at a time, the largest tensor"),
        MemoryPhase::ForwardBackward);
  } else {
    const bool grads_on_cpu = p.params_on_cpu || s.offload.optimizer;
    const Text expert_note = ExpertShardNote(p.grad_shards, p.expert_grad_shards);
    Add(m, "gradients", T("Градиенты", "Gradients"), PerTrainable(m, t, t.grad_bytes, p.grad_shards, p.expert_grad_shards),
        T(fmt::format("{:.0f} байта на обучаемый параметр{}{}{}", t.grad_bytes, ShardNote(p.grad_shards).ru, expert_note.ru, grads_on_cpu ? ", в RAM (offload)" : ""),
          fmt::format("{:.0f} bytes per trainable parameter{}{}{}", t.grad_bytes, ShardNote(p.grad_shards).en, expert_note.en, grads_on_cpu ? ", in CPU RAM (offload)" : "")),
        grads_on_cpu ? MemoryPhase::Cpu : MemoryPhase::OptimizerStep);
    if (!grads_on_cpu) {
      Add(m, "optimizer_step_buffer", T("Буфер шага оптимизатора", "Optimizer step buffer"),
          PerTrainable(m, t, StepBufferPerParam(s.optimizer, t.state_bytes), p.state_shards, p.expert_state_shards),
          s.optimizer == Optimizer::AdamW
              ? T("foreach AdamW считает sqrt(v) сразу для всех параметров", "foreach AdamW computes sqrt(v) for all parameters at once")
              : T("шаг на месте, без временного буфера", "in-place step, no temporary buffer"),
          MemoryPhase::OptimizerStep);
    }
  }
  if (s.gpus > 1 && s.sharding == Sharding::Ddp && !s.optimizer_in_backward) {
    // DistributedDataParallel all-reduces through flat buckets that hold a second copy of every
    // gradient (gradient_as_bucket_view=False, the default).
    Add(m, "ddp_buckets", T("Буферы DDP", "DDP buckets"), PerTrainable(m, t, t.grad_bytes, 1, s.expert_parallel),
        T("копия градиентов в корзинах all-reduce (gradient_as_bucket_view=False)",
          "a copy of the gradients in the all-reduce buckets (gradient_as_bucket_view=False)"),
        MemoryPhase::OptimizerStep);
  }
}

// Activations and logits need the architecture.
void AddActivations(TrainingMemory& m, const ModelInput& model, const TrainingSettings& s) {
  const int64_t tokens = s.batch * s.seq;
  std::optional<double> activations, layer_backward, logits;
  if (model.arch) {
    activations = SavedActivationBytes(*model.arch, s);
    layer_backward = LayerBackwardBytes(*model.arch, s);
    logits = LogitsBytes(*model.arch, s);
  }
  std::string how_ru = s.checkpointing ? fmt::format("{} токенов; checkpointing: вход каждого слоя", tokens)
                                       : fmt::format("{} токенов, все слои", tokens);
  std::string how_en = s.checkpointing ? fmt::format("{} tokens; checkpointing: each layer's input", tokens)
                                       : fmt::format("{} tokens, all layers", tokens);
  if (s.offload.activations) how_ru += "; offload: на GPU два слоя в пути", how_en += "; offload: two layers in flight on the GPU";
  if (s.compile) how_ru += "; torch.compile", how_en += "; torch.compile";
  Add(m, "activations", T("Активации", "Activations"), activations,
      T(how_ru + "; " + AttentionNote(s).ru, how_en + "; " + AttentionNote(s).en), MemoryPhase::ForwardBackward);
  if (s.offload.activations && model.arch) {
    // What activation offload moves to the host: the saved activations of every layer but those in flight.
    TrainingSettings kept = s;
    kept.offload.activations = false;
    const double all = SavedActivationBytes(*model.arch, kept);
    Add(m, "offloaded_activations", T("Активации в RAM", "Activations in CPU RAM"), std::max(0.0, all - *activations),
        T("сохранённые активации всех слоёв, кроме двух в пути", "the saved activations of every layer but the two in flight"), MemoryPhase::Cpu);
  }
  Add(m, "layer_backward", T("Backward слоя", "A layer's backward"), layer_backward,
      s.checkpointing ? (s.keep_logits ? T("один слой пересчитан + градиенты его активаций", "one layer recomputed + its activation gradients")
                                       : T("один слой пересчитан + градиенты его активаций; логитов к этому времени уже нет",
                                           "one layer recomputed + its activation gradients; the logits are gone by then"))
                      : T("градиенты активаций одного слоя; логитов к этому времени уже нет",
                          "one layer's activation gradients; the logits are gone by then"),
      MemoryPhase::LayerBackward);
  Add(m, "logits", T("Логиты и loss", "Logits and loss"), logits, LossNote(s), MemoryPhase::LossBackward);
  if (s.keep_logits) {
    Add(m, "kept_logits", T("FP32-логиты в выходе модели", "FP32 logits held in the model output"),
        model.arch ? std::optional<double>(KeptLogitsBytes(*model.arch, s)) : std::nullopt,
        T("4 байта × словарь на токен: цикл держит выход модели до конца backward (--keep-logits)",
          "4 bytes × vocabulary per token: the loop holds the model output until backward ends (--keep-logits)"),
        MemoryPhase::ForwardBackward);
  }
  if (model.arch && s.expert_parallel > 1) {
    Add(m, "ep_all_to_all", T("Буферы all-to-all (EP)", "All-to-all buffers (EP)"), ExpertAllToAllBytes(*model.arch, s),
        T("backward MoE-слоя: отправка и приём градиентов строк экспертов, токены × top_k × hidden в BF16 каждый",
          "an MoE layer's backward: the expert rows' gradients sent and received, tokens × top_k × hidden in BF16 each"),
        MemoryPhase::LayerBackward);
  }
  if (s.method == Method::Qlora) {
    std::optional<double> buffer;
    if (const std::optional<ParamCounts> counts = model.counts()) buffer = static_cast<double>(counts->largest_linear) * kBf16;
    Add(m, "dequant_buffer", T("Буфер деквантования", "Dequantisation buffer"), buffer,
        T("самая большая матрица слоя в BF16 на время умножения", "the largest layer matrix in BF16 during its matmul"),
        MemoryPhase::LayerBackward);
  }
}

// What the sharding engine keeps gathered beside the shards: sharded_residency.h.
void AddShardedResidency(TrainingMemory& m, const ModelInput& model, const TrainingSettings& s, const CalcConstants& k) {
  for (MemoryComponent& c : ShardedResidency(model, s, k)) m.components.push_back(std::move(c));
}

// Peak: see the header.
void AddPeak(TrainingMemory& m, const CalcConstants& k) {
  double always = 0, forward = 0, loss_stage = 0, layer_stage = 0, step = 0, reserved_apart = 0;
  bool complete = true;
  for (const MemoryComponent& c : m.components) {
    if (!c.bytes) {
      complete = false;
      continue;
    }
    if (c.phase == MemoryPhase::Always) always += *c.bytes;
    if (c.phase == MemoryPhase::ForwardBackward) forward += *c.bytes;
    if (c.phase == MemoryPhase::LossBackward) loss_stage += *c.bytes;
    if (c.phase == MemoryPhase::LayerBackward) layer_stage += *c.bytes;
    if (c.phase == MemoryPhase::OptimizerStep) step += *c.bytes;
    if (c.phase == MemoryPhase::Paged) m.paged_bytes += *c.bytes;
    if (c.phase == MemoryPhase::Cpu) m.cpu_bytes += *c.bytes;
    if (c.phase == MemoryPhase::OutsideAllocator) reserved_apart += *c.bytes;  // reserved, never allocated at the peak
  }
  forward += std::max(loss_stage, layer_stage);  // the two stages of backward never overlap
  m.known_bytes = always + std::max(forward, step) + reserved_apart;
  const double context = k.cuda_context_gib * kBytesPerGiB;
  if (complete) {
    const double peak = always + std::max(forward, step);
    m.peak_allocated_bytes = peak;
    Add(m, "allocator_reserve", T("Кэш аллокатора PyTorch", "PyTorch allocator cache"), peak * k.allocator_reserve_fraction,
        T(fmt::format("{:.0f}% пика: освобождённые блоки остаются зарезервированы", k.allocator_reserve_fraction * 100),
          fmt::format("{:.0f}% of the peak: freed blocks stay reserved", k.allocator_reserve_fraction * 100)),
        MemoryPhase::OutsideAllocator);
    m.peak_total_bytes = peak * (1 + k.allocator_reserve_fraction) + reserved_apart + context;
  }
  Add(m, "cuda_context", T("Контекст CUDA", "CUDA context"), context,
      T("драйвер, cuBLAS и cuDNN; не входит в max_memory_allocated", "driver, cuBLAS and cuDNN; not in max_memory_allocated"),
      MemoryPhase::OutsideAllocator);
  m.known_bytes += context;
}

}  // namespace

TrainingMemory EstimateTrainingMemory(const ModelInput& model, const TrainingSettings& s, const CalcConstants& k) {
  TrainingMemory m;
  m.total_params = model.total_params();
  const Placement placement = PlacementOf(s);
  AddWeights(m, model, s, k, placement);
  const Trainable trainable = AddTrainable(m, model, s, placement);
  AddOptimizerStates(m, s, placement, trainable);
  AddGradients(m, model, s, placement, trainable);
  AddActivations(m, model, s);
  AddShardedResidency(m, model, s, k);
  AddPeak(m, k);
  m.host_gpus = std::max(1, s.gpus);
  m.host_ram_bytes = m.cpu_bytes * m.host_gpus;
  m.host_ram_planned_bytes = m.host_ram_bytes * k.host_ram_buffer_factor;
  return m;
}

nlohmann::json TrainingMemoryJson(const TrainingMemory& m) {
  static const char* kPhases[] = {"always",  "forward_backward", "optimizer_step", "outside_allocator",
                                  "paged",   "cpu",              "loss_backward",  "layer_backward"};
  nlohmann::json components = nlohmann::json::array();
  for (const MemoryComponent& c : m.components) {
    nlohmann::json item = {{"id", c.id}, {"phase", kPhases[static_cast<int>(c.phase)]}};
    item["size"] = c.bytes ? BytesJson(*c.bytes) : nlohmann::json(nullptr);
    components.push_back(item);
  }
  return {{"components", components},
          {"total_params", m.total_params},
          {"trainable_params", m.trainable_known ? nlohmann::json(m.trainable_params) : nlohmann::json(nullptr)},
          {"peak_allocated", m.peak_allocated_bytes ? BytesJson(*m.peak_allocated_bytes) : nlohmann::json(nullptr)},
          {"peak_total", m.peak_total_bytes ? BytesJson(*m.peak_total_bytes) : nlohmann::json(nullptr)},
          {"paged_outside_allocator", BytesJson(m.paged_bytes)},
          {"cpu_offloaded", BytesJson(m.cpu_bytes)},
          {"host_ram", {{"gpus", m.host_gpus}, {"offloaded", BytesJson(m.host_ram_bytes)}, {"with_deepspeed_margin", BytesJson(m.host_ram_planned_bytes)}}},
          {"known_lower_bound", BytesJson(m.known_bytes)}};
}

}  // namespace labcheck::calc

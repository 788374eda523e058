#include "calc/training_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "calc/activation_memory.h"
#include "calc/byte_units.h"
#include "calc/param_count.h"

namespace labcheck::calc {
namespace {

constexpr double kBf16 = 2;
constexpr double kFp32 = 4;

double OptimizerStatesPerParam(Optimizer optimizer, double state_bytes) {
  switch (optimizer) {
    case Optimizer::AdamW: return 2 * state_bytes;  // exp_avg and exp_avg_sq in the parameter's dtype
    case Optimizer::AdamW8bit: return 2;            // bitsandbytes: two 8-bit states (block scales negligible)
    case Optimizer::Sgd: return 0;                  // plain SGD without momentum keeps no state
  }
  return 0;
}

// torch.optim.AdamW (foreach) computes sqrt(exp_avg_sq) for all parameters at once; bitsandbytes
// updates each tensor in place; SGD adds the gradient in place.
double StepBufferPerParam(Optimizer optimizer, double state_bytes) {
  return optimizer == Optimizer::AdamW ? state_bytes : 0;
}

Text OptimizerNote(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::AdamW: return T("AdamW: два состояния на параметр", "AdamW: two states per parameter");
    case Optimizer::AdamW8bit: return T("8-битный AdamW (bitsandbytes): 2 байта на параметр", "8-bit AdamW (bitsandbytes): 2 bytes per parameter");
    case Optimizer::Sgd: return T("SGD без момента: состояний нет", "SGD without momentum: no state");
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

TrainingMemory EstimateTrainingMemory(const ModelInput& model, const TrainingSettings& s, const CalcConstants& k) {
  TrainingMemory m;
  const std::optional<ParamCounts> counts = model.counts();
  const double n = static_cast<double>(model.total_params());
  const double shards = std::max(1, s.gpus);
  const int64_t tokens = s.batch * s.seq;
  m.total_params = model.total_params();
  const bool mixed = s.precision == Precision::Mixed;
  auto add = [&m](std::string id, Text label, std::optional<double> bytes, Text note, MemoryPhase phase) {
    m.components.push_back({std::move(id), std::move(label), bytes, std::move(note), phase});
  };

  // Weights.
  if (s.method == Method::Qlora) {
    const double quantized = counts ? static_cast<double>(counts->quantizable()) : n;
    const double kept = counts ? n - quantized : 0;
    add("weights", T("Веса (NF4 + BF16)", "Weights (NF4 + BF16)"), (quantized * k.nf4_bits / 8 + kept * kBf16) / shards,
        counts ? T(fmt::format("{} в NF4 по {:.3f} бита (двойное квантование) + {} в BF16 (эмбеддинги, lm_head, нормы)",
                               FormatParams(quantized), k.nf4_bits, FormatParams(kept)),
                   fmt::format("{} in NF4 at {:.3f} bits (double quantisation) + {} in BF16 (embeddings, lm_head, norms)",
                               FormatParams(quantized), k.nf4_bits, FormatParams(kept)))
               : T(fmt::format("все параметры в NF4 по {:.3f} бита; без архитектуры не отделить слои, что остаются в BF16", k.nf4_bits),
                   fmt::format("all parameters in NF4 at {:.3f} bits; without the architecture the BF16 layers cannot be told apart", k.nf4_bits)),
        MemoryPhase::Always);
  } else {
    const double bytes = (s.method == Method::Full && mixed) ? kFp32 : kBf16;
    add("weights", T("Веса", "Weights"), n * bytes / shards,
        T(fmt::format("{} параметров × {:.0f} байта", FormatParams(n), bytes),
          fmt::format("{} parameters × {:.0f} bytes", FormatParams(n), bytes)),
        MemoryPhase::Always);
  }

  // Trainable parameters: all of them, or the adapters.
  double trainable = n, state_bytes = mixed ? kFp32 : kBf16, grad_bytes = mixed ? kFp32 : kBf16;
  if (s.method != Method::Full) {
    state_bytes = k.adapter_weight_bytes;
    grad_bytes = k.adapter_gradient_bytes;
    if (model.arch) {
      trainable = static_cast<double>(LoraParams(*model.arch, s.lora_rank));
      add("adapters", T("LoRA-адаптеры", "LoRA adapters"), trainable * k.adapter_weight_bytes / shards,
          T(fmt::format("ранг {} на всех линейных слоях: {} параметров в FP32 (PEFT)", s.lora_rank, FormatParams(trainable)),
            fmt::format("rank {} on every linear layer: {} parameters in FP32 (PEFT)", s.lora_rank, FormatParams(trainable))),
          MemoryPhase::Always);
    } else {
      m.trainable_known = false;
      add("adapters", T("LoRA-адаптеры", "LoRA adapters"), std::nullopt,
          T("нужна архитектура: размеры слоёв", "needs the architecture: layer shapes"), MemoryPhase::Always);
    }
  }
  m.trainable_params = m.trainable_known ? static_cast<int64_t>(trainable) : 0;
  auto per_trainable = [&](double bytes_per_param) -> std::optional<double> {
    if (!m.trainable_known) return std::nullopt;
    return trainable * bytes_per_param / shards;
  };
  add("optimizer_states", T("Состояния оптимизатора", "Optimizer states"),
      per_trainable(OptimizerStatesPerParam(s.optimizer, state_bytes)), OptimizerNote(s.optimizer), MemoryPhase::Always);
  add("gradients", T("Градиенты", "Gradients"), per_trainable(grad_bytes),
      T(fmt::format("{:.0f} байта на обучаемый параметр", grad_bytes), fmt::format("{:.0f} bytes per trainable parameter", grad_bytes)),
      MemoryPhase::OptimizerStep);
  add("optimizer_step_buffer", T("Буфер шага оптимизатора", "Optimizer step buffer"),
      per_trainable(StepBufferPerParam(s.optimizer, state_bytes)),
      T("foreach AdamW считает sqrt(v) сразу для всех параметров", "foreach AdamW computes sqrt(v) for all parameters at once"),
      MemoryPhase::OptimizerStep);

  // Activations and logits need the architecture.
  const int64_t lora_rank = s.method == Method::Full ? 0 : s.lora_rank;
  std::optional<double> activations, logits;
  if (model.arch) {
    activations = ActivationBytes(*model.arch, tokens, s.checkpointing, lora_rank);
    logits = LogitsBytes(*model.arch, tokens);
  }
  add("activations", T("Активации", "Activations"), activations,
      s.checkpointing
          ? T(fmt::format("{} токенов; checkpointing: вход каждого слоя + один слой при пересчёте", tokens),
              fmt::format("{} tokens; checkpointing: each layer's input + one layer recomputed", tokens))
          : T(fmt::format("{} токенов, все слои (SwiGLU, GQA, fused attention)", tokens),
              fmt::format("{} tokens, all layers (SwiGLU, GQA, fused attention)", tokens)),
      MemoryPhase::ForwardBackward);
  add("logits", T("Логиты и loss", "Logits and loss"), logits,
      T("14 байт × словарь на токен: BF16-логиты, FP32 log-softmax и его градиент",
        "14 bytes × vocabulary per token: BF16 logits, FP32 log-softmax and its gradient"),
      MemoryPhase::ForwardBackward);
  if (s.method == Method::Qlora) {
    std::optional<double> buffer;
    if (counts) buffer = static_cast<double>(counts->largest_linear) * kBf16;
    add("dequant_buffer", T("Буфер деквантования", "Dequantisation buffer"), buffer,
        T("самая большая матрица слоя в BF16 на время умножения", "the largest layer matrix in BF16 during its matmul"),
        MemoryPhase::ForwardBackward);
  }
  if (s.gpus > 1 && counts) {
    const double layer_params = static_cast<double>(counts->attention + counts->mlp + counts->router) / model.arch->layers;
    const double bytes = s.method == Method::Qlora ? k.nf4_bits / 8 : kBf16;  // gathered in the compute dtype
    add("fsdp_gathered", T("Собранные слои FSDP", "FSDP gathered layers"), 2 * layer_params * bytes,
        T("текущий и следующий слой целиком на время вычисления", "the current and the prefetched layer, unsharded"),
        MemoryPhase::ForwardBackward);
  }

  // Peak: see the header.
  double always = 0, forward = 0, step = 0;
  bool complete = true;
  for (const MemoryComponent& c : m.components) {
    if (!c.bytes) {
      complete = false;
      continue;
    }
    m.known_bytes += c.phase == MemoryPhase::Always ? *c.bytes : 0;
    if (c.phase == MemoryPhase::Always) always += *c.bytes;
    if (c.phase == MemoryPhase::ForwardBackward) forward += *c.bytes;
    if (c.phase == MemoryPhase::OptimizerStep) step += *c.bytes;
  }
  m.known_bytes += std::max(forward, step);
  const double context = k.cuda_context_gib * kBytesPerGiB;
  if (complete) {
    const double peak = always + std::max(forward, step);
    m.peak_allocated_bytes = peak;
    add("allocator_reserve", T("Кэш аллокатора PyTorch", "PyTorch allocator cache"), peak * k.allocator_reserve_fraction,
        T(fmt::format("{:.0f}% пика: освобождённые блоки остаются зарезервированы", k.allocator_reserve_fraction * 100),
          fmt::format("{:.0f}% of the peak: freed blocks stay reserved", k.allocator_reserve_fraction * 100)),
        MemoryPhase::OutsideAllocator);
    m.peak_total_bytes = peak * (1 + k.allocator_reserve_fraction) + context;
  }
  add("cuda_context", T("Контекст CUDA", "CUDA context"), context,
      T("драйвер, cuBLAS и cuDNN; не входит в max_memory_allocated", "driver, cuBLAS and cuDNN; not in max_memory_allocated"),
      MemoryPhase::OutsideAllocator);
  m.known_bytes += context;
  return m;
}

nlohmann::json TrainingMemoryJson(const TrainingMemory& m) {
  static const char* kPhases[] = {"always", "forward_backward", "optimizer_step", "outside_allocator"};
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
          {"known_lower_bound", BytesJson(m.known_bytes)}};
}

}  // namespace labcheck::calc

#include "calc/serving.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "calc/byte_units.h"
#include "calc/kv_cache.h"
#include "calc/param_count.h"

namespace labcheck::calc {
namespace {

constexpr double kBf16 = 2;
constexpr double kFp32 = 4;

// vLLM's profile run pushes max_num_batched_tokens through the model; layers run one after the
// other, so the peak is one layer's transient tensors: residual and hidden (2h), q/k/v and the
// attention output, the MLP's gate_up output and its activation (3 widths), split by tp. Then
// the sampler holds FP32 logits and probabilities for max_num_seqs sequences.
double ProfileActivationBytes(const Architecture& arch, int tp, const CalcConstants& k) {
  const double width = arch.moe.enabled()
                           ? static_cast<double>(arch.moe.experts_per_token * arch.moe.expert_intermediate)
                           : static_cast<double>(arch.intermediate);
  const double per_token = kBf16 * (2.0 * arch.hidden + (2.0 * arch.q_dim() + 2.0 * arch.kv_dim() + 3 * width) / tp);
  const double logits = 2 * kFp32 * static_cast<double>(arch.vocab) * k.vllm_max_num_seqs;
  return per_token * k.vllm_max_num_batched_tokens + logits;
}

std::string FormatUtilization(double u) { return fmt::format("{:g}", u); }

}  // namespace

std::optional<ServeQuant> ParseServeQuant(const std::string& text) {
  if (text == "bf16") return ServeQuant::Bf16;
  if (text == "int8") return ServeQuant::Int8;
  if (text == "int4") return ServeQuant::Int4;
  return std::nullopt;
}

const char* ServeQuantName(ServeQuant quant) {
  switch (quant) {
    case ServeQuant::Bf16: return "bf16";
    case ServeQuant::Int8: return "int8";
    case ServeQuant::Int4: return "int4";
  }
  return "?";
}

double ServingWeightBytes(const ModelInput& model, ServeQuant quant, const CalcConstants& k) {
  const double n = static_cast<double>(model.total_params());
  if (quant == ServeQuant::Bf16) return n * kBf16;
  const double bits = (quant == ServeQuant::Int8 ? k.int8 : k.int4).EffectiveBits();
  const std::optional<ParamCounts> counts = model.counts();
  // Without the architecture every parameter is taken as quantised (the seed's table does so).
  const double quantized = counts ? static_cast<double>(counts->quantizable()) : n;
  return quantized * bits / 8 + (n - quantized) * kBf16;
}

ServePlan PlanServing(const ModelInput& model, const ServeSettings& s, const CalcConstants& k) {
  ServePlan plan;
  plan.weights_bytes = ServingWeightBytes(model, s.quant, k);
  if (model.arch) {
    plan.max_model_len = s.max_model_len > 0 ? s.max_model_len : model.arch->max_context;
  }
  for (int tp = 1; tp <= std::max(1, s.gpus); ++tp) {
    TpOption o;
    o.tp = tp;
    // Without the architecture the head count is unknown; nearly every model has a power of two.
    o.heads_divide = model.arch ? model.arch->heads % tp == 0 : (tp & (tp - 1)) == 0;
    // vLLM shards every linear layer and the vocabulary; norms (negligible) are replicated.
    o.weights_per_gpu = plan.weights_bytes / tp;
    o.non_torch_per_gpu = k.vllm_non_torch_gib * kBytesPerGiB;
    o.budget_per_gpu = s.utilization * s.gpu_memory_gib * kBytesPerGiB;
    if (model.arch) o.activation_peak_per_gpu = ProfileActivationBytes(*model.arch, tp, k);
    o.kv_room_per_gpu = o.budget_per_gpu - o.weights_per_gpu - o.activation_peak_per_gpu.value_or(0) - o.non_torch_per_gpu;
    if (model.arch) {
      KvSettings kv{plan.max_model_len, 1, s.kv_dtype_bytes, tp};
      const KvCache one = ComputeKvCache(*model.arch, kv);
      // vLLM reports the KV cache in tokens of a full-attention layer stack.
      o.kv_tokens = o.kv_room_per_gpu > 0 ? static_cast<int64_t>(o.kv_room_per_gpu / one.bytes_per_token_per_gpu) : 0;
      o.max_concurrency = one.sequence_bytes_per_gpu > 0 && o.kv_room_per_gpu > 0
                              ? static_cast<int64_t>(o.kv_room_per_gpu / one.sequence_bytes_per_gpu) : 0;
      o.fits = o.heads_divide && o.kv_room_per_gpu >= one.sequence_bytes_per_gpu;
    } else {
      o.fits = o.heads_divide && o.kv_room_per_gpu >= k.serve_min_kv_cache_gib * kBytesPerGiB;
    }
    if (o.fits && !plan.chosen_tp) plan.chosen_tp = tp;
    plan.options.push_back(o);
  }

  const std::string repo = model.hf_repo.empty() ? "<model>" : model.hf_repo;
  std::string command = fmt::format("vllm serve {}", s.quant == ServeQuant::Int4 ? "<AWQ/GPTQ checkpoint of " + repo + ">" : repo);
  if (plan.chosen_tp.value_or(1) > 1) command += fmt::format(" --tensor-parallel-size {}", *plan.chosen_tp);
  command += " --gpu-memory-utilization " + FormatUtilization(s.utilization);
  if (plan.max_model_len > 0) command += fmt::format(" --max-model-len {}", plan.max_model_len);
  if (s.quant == ServeQuant::Int8) command += " --quantization fp8";
  if (s.kv_dtype_bytes == 1) command += " --kv-cache-dtype fp8";
  plan.vllm_command = command;
  if (s.quant == ServeQuant::Int4) {
    plan.note = T("4 бита: vLLM берёт готовый AWQ/GPTQ-чекпойнт (группа 128, ~4.16 бита на вес); эмбеддинги и lm_head остаются в BF16.",
                  "4-bit: vLLM loads a ready AWQ/GPTQ checkpoint (group 128, ~4.16 bits per weight); embeddings and lm_head stay BF16.");
  } else if (s.quant == ServeQuant::Int8) {
    plan.note = T("8 бит: --quantization fp8 квантует веса при загрузке (на Ada/Hopper — FP8-ядра, на Ampere — только веса).",
                  "8-bit: --quantization fp8 quantises weights on load (FP8 kernels on Ada/Hopper, weight-only on Ampere).");
  }
  if (!model.arch) {
    plan.note = T(fmt::format("Только размер: KV-кэш на токен и активации профиля не посчитать без архитектуры; «влезает» значит, "
                              "что на KV-кэш остаётся не меньше {:g} GiB. {}", k.serve_min_kv_cache_gib, plan.note.ru),
                  fmt::format("Size only: KV cache per token and the profile's activations need the architecture; 'fits' means at "
                              "least {:g} GiB are left for the KV cache. {}", k.serve_min_kv_cache_gib, plan.note.en));
  }
  return plan;
}

nlohmann::json ServePlanJson(const ServePlan& plan, const ServeSettings& s, Lang lang) {
  nlohmann::json options = nlohmann::json::array();
  for (const TpOption& o : plan.options) {
    options.push_back({{"tp", o.tp},
                       {"heads_divide", o.heads_divide},
                       {"weights_per_gpu", BytesJson(o.weights_per_gpu)},
                       {"activation_peak_per_gpu", o.activation_peak_per_gpu ? BytesJson(*o.activation_peak_per_gpu) : nlohmann::json(nullptr)},
                       {"non_torch_per_gpu", BytesJson(o.non_torch_per_gpu)},
                       {"budget_per_gpu", BytesJson(o.budget_per_gpu)},
                       {"kv_room_per_gpu", BytesJson(o.kv_room_per_gpu)},
                       {"kv_tokens", o.kv_tokens ? nlohmann::json(*o.kv_tokens) : nlohmann::json(nullptr)},
                       {"max_concurrency", o.max_concurrency ? nlohmann::json(*o.max_concurrency) : nlohmann::json(nullptr)},
                       {"fits", o.fits}});
  }
  return {{"quant", ServeQuantName(s.quant)},
          {"gpus", s.gpus},
          {"gpu_memory_gib", s.gpu_memory_gib},
          {"utilization", s.utilization},
          {"weights", BytesJson(plan.weights_bytes)},
          {"max_model_len", plan.max_model_len > 0 ? nlohmann::json(plan.max_model_len) : nlohmann::json(nullptr)},
          {"options", options},
          {"fits", plan.chosen_tp.has_value()},
          {"tensor_parallel_size", plan.chosen_tp ? nlohmann::json(*plan.chosen_tp) : nlohmann::json(nullptr)},
          {"vllm_command", plan.vllm_command},
          {"note", plan.note.In(lang)}};
}

}  // namespace labcheck::calc

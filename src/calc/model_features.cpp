#include "calc/model_features.h"

#include <fmt/format.h>

#include <algorithm>

#include "calc/checkpoint_weights.h"

namespace labcheck::calc {
namespace {

WorkNote AttentionNote(const Architecture& a) {
  if (a.mla.enabled()) {
    const LatentAttention& m = a.mla;
    const std::string q = m.q_lora_rank > 0 ? fmt::format(", q через ранг {}", m.q_lora_rank) : "";
    const std::string q_en = m.q_lora_rank > 0 ? fmt::format(", q through rank {}", m.q_lora_rank) : "";
    return {"mla", T(fmt::format("MLA: {} голов, в KV-кэше латент {} + rope-ключ {} = {} значений на слой и токен, целиком на каждой GPU при TP{}",
                                 a.heads, m.kv_lora_rank, m.qk_rope_head_dim, m.cached_values_per_token_layer(), q),
                     fmt::format("MLA: {} heads, the KV cache holds a latent of {} + a rope key of {} = {} values per layer and token, whole on every GPU under TP{}",
                                 a.heads, m.kv_lora_rank, m.qk_rope_head_dim, m.cached_values_per_token_layer(), q_en))};
  }
  if (a.kv_heads == a.heads) {
    return {"mha", T(fmt::format("MHA: {} голов, у каждой свои K и V", a.heads),
                     fmt::format("MHA: {} heads, each with its own K and V", a.heads))};
  }
  return {"gqa", T(fmt::format("GQA: KV-голов {}, голов запросов {}", a.kv_heads, a.heads),
                   fmt::format("GQA: {} KV heads for {} query heads", a.kv_heads, a.heads))};
}

WorkNote MoeNote(const Architecture& a) {
  const MixtureOfExperts& m = a.moe;
  std::string ru = fmt::format("MoE: экспертов {} шириной {}, на токен {}", m.experts, m.expert_intermediate, m.experts_per_token);
  std::string en = fmt::format("MoE: {} experts of width {}, {} per token", m.experts, m.expert_intermediate, m.experts_per_token);
  if (m.shared_expert_intermediate > 0) {
    ru += m.shared_experts > 0 ? fmt::format(", общие эксперты: {} (ширина {})", m.shared_experts, m.shared_expert_intermediate)
                               : fmt::format(", общий эксперт шириной {}", m.shared_expert_intermediate);
    en += m.shared_experts > 0 ? fmt::format(", shared experts: {} (width {})", m.shared_experts, m.shared_expert_intermediate)
                               : fmt::format(", a shared expert of width {}", m.shared_expert_intermediate);
  }
  int64_t moe_layers = 0;
  for (int64_t i = 0; i < a.layers; ++i) moe_layers += a.IsMoeLayer(i) ? 1 : 0;
  ru += fmt::format("; слоёв с экспертами {} из {}", moe_layers, a.layers);
  en += fmt::format("; {} of {} layers have experts", moe_layers, a.layers);
  if (m.first_dense_layers > 0) {
    ru += fmt::format(" (плотных первых слоёв: {})", m.first_dense_layers);
    en += fmt::format(" (the first {} are dense)", m.first_dense_layers);
  }
  if (moe_layers < a.layers && a.intermediate != m.expert_intermediate) {
    ru += fmt::format(", у плотных ширина MLP {}", a.intermediate);
    en += fmt::format(", the dense ones an MLP of width {}", a.intermediate);
  }
  return {"moe", T(ru, en)};
}

// Llama 4: which layers attend within a chunk, which to everything.
WorkNote ChunkNote(const Architecture& a) {
  int64_t chunk = 0;
  for (int64_t c : a.chunk_per_layer) chunk = std::max(chunk, c);
  const int64_t chunked = a.ChunkedLayerCount();
  return {"chunked_attention",
          T(fmt::format("чанковое внимание: {} из {} слоёв (с RoPE) смотрят только внутрь своего чанка в {} токенов, остальные {} (NoPE) — на весь контекст",
                        chunked, a.layers, chunk, a.layers - chunked),
            fmt::format("chunked attention: {} of {} layers (with RoPE) attend only within their chunk of {} tokens, the other {} (NoPE) to the whole context",
                        chunked, a.layers, chunk, a.layers - chunked))};
}

WorkNote WindowNote(const Architecture& a) {
  int64_t window = 0;
  for (int64_t w : a.window_per_layer) window = std::max(window, w);
  const int64_t sliding = a.SlidingLayerCount();
  return {"sliding_window", T(fmt::format("скользящее окно {} токенов в {} из {} слоёв", window, sliding, a.layers),
                              fmt::format("a sliding window of {} tokens in {} of {} layers", window, sliding, a.layers))};
}

// Layers with a state per sequence: Jamba's Mamba, Nemotron-H's Mamba-2, Qwen3-Next's Gated DeltaNet.
WorkNote StateLayersNote(const Architecture& a) {
  const MambaLayers& m = a.mamba;
  const int64_t values = m.state_values_per_layer(a.hidden), n = m.count(), attention = a.AttentionLayerCount();
  if (m.kind == StateLayerKind::GatedDeltaNet) {
    return {"gated_deltanet",
            T(fmt::format("Gated DeltaNet: {} из {} слоёв — линейное внимание с состоянием на последовательность ({} значений на слой: окно свёртки {} × {} "
                          "и состояние {} голов × {} × {}), KV-кэш — только у {} слоёв полного внимания (с гейтом на выходе)",
                          n, a.layers, values, m.d_conv - 1, m.conv_channels(a.hidden), m.value_heads, m.value_head_dim, m.key_head_dim, attention),
              fmt::format("Gated DeltaNet: {} of {} layers are linear attention with a state per sequence ({} values per layer: a convolution window of {} × {} "
                          "and a state of {} heads × {} × {}); only the {} full-attention layers (output-gated) have a KV cache",
                          n, a.layers, values, m.d_conv - 1, m.conv_channels(a.hidden), m.value_heads, m.value_head_dim, m.key_head_dim, attention))};
  }
  const char* name = m.kind == StateLayerKind::Mamba2 ? "Mamba-2" : "Mamba";
  if (!a.block_pattern.empty()) {
    const int64_t mlp = a.BlockCount('-'), moe = a.BlockCount('E');
    const std::string moe_ru = moe > 0 ? fmt::format(", {} MoE", moe) : "", ssm_ru = m.ssm_state_value_bytes == 4 ? ", SSM-состояние в float32 (mamba_ssm_cache_dtype)" : "";
    const std::string ssm_en = m.ssm_state_value_bytes == 4 ? ", the SSM state in float32 (mamba_ssm_cache_dtype)" : "";
    return {"mamba", T(fmt::format("{}: блоки по hybrid_override_pattern — {} Mamba-2, {} внимания, {} MLP{}; Mamba-2 держат состояние на последовательность ({} значений на слой: окно свёртки и SSM-состояние{}), KV-кэш — только у {} слоёв внимания",
                                   name, n, attention, mlp, moe_ru, values, ssm_ru, attention),
                       fmt::format("{}: blocks by hybrid_override_pattern, {} Mamba-2, {} attention, {} MLP{}; the Mamba-2 ones keep a state per sequence ({} values per layer: convolution window and SSM state{}); only the {} attention layers have a KV cache",
                                   name, n, attention, mlp, moe_ru, values, ssm_en, attention))};
  }
  return {"mamba", T(fmt::format("{}: {} из {} слоёв держат состояние на последовательность ({} значений на слой: окно свёртки и SSM-состояние), KV-кэш — только у {} слоёв внимания",
                                 name, n, a.layers, values, attention),
                     fmt::format("{}: {} of {} layers keep a state per sequence ({} values per layer: convolution window and SSM state); only the {} attention layers have a KV cache",
                                 name, n, a.layers, values, attention))};
}

}  // namespace

std::vector<WorkNote> ArchitectureFeatures(const Architecture& a) {
  std::vector<WorkNote> notes;
  notes.push_back(AttentionNote(a));
  if (a.moe.enabled()) notes.push_back(MoeNote(a));
  if (a.SlidingLayerCount() > 0) notes.push_back(WindowNote(a));
  if (a.ChunkedLayerCount() > 0) notes.push_back(ChunkNote(a));
  if (a.mamba.count() > 0) notes.push_back(StateLayersNote(a));
  if (a.quant.enabled()) notes.push_back({"quantization", CheckpointQuantText(a.quant)});
  if (a.tied_embeddings) notes.push_back({"tied_embeddings", T("эмбеддинги общие с lm_head", "embeddings tied to lm_head")});
  if (a.vision.present()) {
    notes.push_back({"vision_tower", T(fmt::format("визуальная башня: {} слоёв шириной {} (веса учтены)", a.vision.layers, a.vision.hidden),
                                       fmt::format("vision tower: {} layers of width {} (weights counted)", a.vision.layers, a.vision.hidden))});
  }
  if (a.mtp_layers > 0) {
    notes.push_back({"mtp_not_counted", T(fmt::format("модуль MTP (num_nextn_predict_layers = {}) не учтён: vLLM грузит его только для спекулятивного декодирования", a.mtp_layers),
                                          fmt::format("the MTP module (num_nextn_predict_layers = {}) is not counted: vLLM loads it only for speculative decoding", a.mtp_layers))});
  }
  return notes;
}

nlohmann::json WorkNotesJson(const std::vector<WorkNote>& notes) {
  nlohmann::json list = nlohmann::json::array();
  for (const WorkNote& n : notes) list.push_back({{"key", n.key}, {"text", n.text.In(Lang::En)}});
  return list;
}

std::string WorkNotesLine(const Text& title, const std::vector<WorkNote>& notes, Lang lang) {
  if (notes.empty()) return "";
  std::string line = title.In(lang);
  for (size_t i = 0; i < notes.size(); ++i) line += (i == 0 ? " " : "; ") + notes[i].text.In(lang);
  return line;
}

}  // namespace labcheck::calc

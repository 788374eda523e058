#include "calc/checkpoint_weights.h"

#include <fmt/format.h>

namespace labcheck::calc {

CheckpointWeights CountCheckpointWeights(const ParamCounts& c, const CheckpointQuant& q) {
  CheckpointWeights w;
  if (!q.enabled()) {
    w.bf16_params = c.total();
    w.bytes = 2.0 * static_cast<double>(w.bf16_params);
    return w;
  }
  w.quantized_params = q.experts_only ? c.routed_experts : c.mlp + (q.attention_unquantized ? 0 : c.attention);
  w.bf16_params = c.total() - w.quantized_params;
  w.bytes = static_cast<double>(w.quantized_params) * q.EffectiveBits() / 8 + 2.0 * static_cast<double>(w.bf16_params);
  return w;
}

Text CheckpointQuantText(const CheckpointQuant& q) {
  std::string format_ru, format_en;
  if (q.block_rows > 0) {
    format_ru = fmt::format("{}, масштаб на блок {} × {}", q.name, q.block_rows, q.block_cols);
    format_en = fmt::format("{}, one scale per {} × {} block", q.name, q.block_rows, q.block_cols);
  } else if (q.group_size > 0) {
    format_ru = fmt::format("{} {} бит, группа {}", q.name, q.bits, q.group_size);
    format_en = fmt::format("{} {}-bit, group {}", q.name, q.bits, q.group_size);
  } else {
    format_ru = fmt::format("{} {} бит", q.name, q.bits);
    format_en = fmt::format("{} {}-bit", q.name, q.bits);
  }
  const std::string kept_ru = q.experts_only ? "только эксперты; внимание, роутер, эмбеддинги и lm_head в BF16"
                                             : q.attention_unquantized ? "внимание, роутер, эмбеддинги, lm_head и нормы в BF16"
                                                                       : "роутер, эмбеддинги, lm_head и нормы в BF16";
  const std::string kept_en = q.experts_only ? "experts only; attention, router, embeddings and lm_head BF16"
                                             : q.attention_unquantized ? "attention, router, embeddings, lm_head and norms BF16"
                                                                       : "router, embeddings, lm_head and norms BF16";
  std::string modelled_ru = q.method == QuantMethod::Other ? "; этот метод не смоделирован, взяты его bits" : "";
  std::string modelled_en = q.method == QuantMethod::Other ? "; this method is not modelled, its bits are taken" : "";
  if (q.extra_groups > 0) {
    modelled_ru += fmt::format("; ещё {} групп(ы) config_groups посчитаны с битами первой (не смоделированы отдельно)", q.extra_groups);
    modelled_en += fmt::format("; {} more config_groups counted at the first group's bits (not modelled apart)", q.extra_groups);
  }
  return T(fmt::format("чекпойнт квантован: {} ({:.3f} бита на вес с масштабами); {}{}", format_ru, q.EffectiveBits(), kept_ru, modelled_ru),
           fmt::format("quantised checkpoint: {} ({:.3f} bits per weight with scales); {}{}", format_en, q.EffectiveBits(), kept_en, modelled_en));
}

}  // namespace labcheck::calc

#include "calc/architecture.h"

#include <algorithm>

namespace labcheck::calc {

bool Architecture::IsMoeLayer(int64_t layer) const {
  if (!moe.enabled()) return false;
  // Nemotron 3: the pattern's 'E' blocks are the MoE layers.
  if (!block_pattern.empty()) return layer >= 0 && layer < static_cast<int64_t>(block_pattern.size()) && block_pattern[static_cast<size_t>(layer)] == 'E';
  if (std::find(moe.dense_layers.begin(), moe.dense_layers.end(), layer) != moe.dense_layers.end()) {
    return false;
  }
  if (layer < moe.first_dense_layers) return false;
  if (moe.layer_freq > 1 && layer % moe.layer_freq != moe.layer_offset) return false;
  // Qwen-MoE's rule (modeling_qwen2_moe.py): layer i is sparse when (i + 1) % decoder_sparse_step == 0.
  const int64_t step = std::max<int64_t>(1, moe.sparse_step);
  return (layer + 1) % step == 0;
}

int64_t MambaLayers::count() const { return std::count(per_layer.begin(), per_layer.end(), true); }

int64_t MambaLayers::conv_channels(int64_t hidden) const {
  switch (kind) {
    case StateLayerKind::Mamba2: return heads * head_dim + 2 * groups * d_state;
    case StateLayerKind::GatedDeltaNet: return 2 * key_heads * key_head_dim + value_heads * value_head_dim;
    case StateLayerKind::Mamba1: break;
  }
  return expand * hidden;
}

int64_t MambaLayers::state_values_per_layer(int64_t hidden) const {
  const int64_t conv = (d_conv - 1) * conv_channels(hidden);
  switch (kind) {
    case StateLayerKind::Mamba2: return conv + heads * head_dim * d_state;
    case StateLayerKind::GatedDeltaNet: return conv + value_heads * value_head_dim * key_head_dim;
    case StateLayerKind::Mamba1: break;
  }
  return conv + expand * hidden * d_state;
}

double MambaLayers::state_bytes_per_layer(int64_t hidden, double model_dtype_bytes) const {
  const int64_t conv = conv_state_values_per_layer(hidden);
  const double ssm_bytes = ssm_state_value_bytes > 0 ? ssm_state_value_bytes : model_dtype_bytes;
  return static_cast<double>(conv) * model_dtype_bytes + static_cast<double>(state_values_per_layer(hidden) - conv) * ssm_bytes;
}

double CheckpointQuant::EffectiveBits() const {
  const double b = static_cast<double>(bits);
  switch (method) {
    case QuantMethod::Gptq:
    case QuantMethod::Awq:
      // qweight packed, an FP16 scale and a packed `bits`-wide zero point per group of group_size.
      return group_size > 0 ? b + (16.0 + b) / static_cast<double>(group_size) : b;
    case QuantMethod::Fp8:
      // Block-wise FP32 scale_inv (DeepSeek-V3: 128 x 128), else one per channel: negligible.
      return block_rows > 0 && block_cols > 0 ? 8.0 + 32.0 / static_cast<double>(block_rows * block_cols) : 8.0;
    case QuantMethod::Mxfp4:
      // OCP MX: E2M1 values with one 8-bit (E8M0) scale per block of 32.
      return 4.0 + 8.0 / static_cast<double>(group_size > 0 ? group_size : 32);
    case QuantMethod::Bnb4:
      // NF4/FP4 with double quantisation (QLoRA, section 3): 4 + 8/64 + 32/(64*256).
      return 4.0 + 8.0 / 64 + 32.0 / (64 * 256);
    case QuantMethod::Bnb8:
      return 8.0;  // LLM.int8(): one FP32 scale per row, negligible
    case QuantMethod::CompressedTensors:
      // pack-quantized: values packed in int32, a 16-bit weight_scale per group (per channel:
      // negligible) and, for asymmetric schemes, a `bits`-wide zero point per group.
      return group_size > 0 ? b + (16.0 + (zero_point ? b : 0.0)) / static_cast<double>(group_size) : b;
    case QuantMethod::Other:
      return b;
    case QuantMethod::None:
      break;
  }
  return 16.0;
}

int64_t Architecture::SlidingLayerCount() const {
  return std::count_if(window_per_layer.begin(), window_per_layer.end(), [](int64_t w) { return w > 0; });
}

int64_t Architecture::ChunkedLayerCount() const {
  return std::count_if(chunk_per_layer.begin(), chunk_per_layer.end(), [](int64_t c) { return c > 0; });
}

int64_t Architecture::WindowOf(int64_t layer) const {
  return layer >= 0 && layer < static_cast<int64_t>(window_per_layer.size()) ? window_per_layer[static_cast<size_t>(layer)] : 0;
}

int64_t Architecture::ChunkOf(int64_t layer) const {
  return layer >= 0 && layer < static_cast<int64_t>(chunk_per_layer.size()) ? chunk_per_layer[static_cast<size_t>(layer)] : 0;
}

bool Architecture::HasAttention(int64_t layer) const {
  if (!block_pattern.empty()) return layer >= 0 && layer < static_cast<int64_t>(block_pattern.size()) && block_pattern[static_cast<size_t>(layer)] == '*';
  return !mamba.IsMamba(layer);
}

bool Architecture::HasMlp(int64_t layer) const {
  if (!block_pattern.empty()) {
    if (layer < 0 || layer >= static_cast<int64_t>(block_pattern.size())) return false;
    const char block = block_pattern[static_cast<size_t>(layer)];
    return block == '-' || block == 'E';
  }
  return true;
}

int64_t Architecture::BlockCount(char block) const { return std::count(block_pattern.begin(), block_pattern.end(), block); }

int64_t Architecture::AttentionLayerCount() const {
  int64_t n = 0;
  for (int64_t i = 0; i < layers; ++i) n += HasAttention(i) ? 1 : 0;
  return n;
}

}  // namespace labcheck::calc

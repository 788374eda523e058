#include "calc/architecture.h"

#include <algorithm>

namespace labcheck::calc {

bool Architecture::IsMoeLayer(int64_t layer) const {
  if (!moe.enabled()) return false;
  if (std::find(moe.dense_layers.begin(), moe.dense_layers.end(), layer) != moe.dense_layers.end()) {
    return false;
  }
  // Qwen-MoE's rule (modeling_qwen2_moe.py): layer i is sparse when (i + 1) % decoder_sparse_step == 0.
  const int64_t step = std::max<int64_t>(1, moe.sparse_step);
  return (layer + 1) % step == 0;
}

int64_t Architecture::SlidingLayerCount() const {
  return std::count_if(window_per_layer.begin(), window_per_layer.end(), [](int64_t w) { return w > 0; });
}

}  // namespace labcheck::calc

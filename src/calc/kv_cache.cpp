#include "calc/kv_cache.h"

#include <algorithm>

#include "calc/byte_units.h"

namespace labcheck::calc {

int64_t KvHeadsPerGpu(const Architecture& arch, int tp) {
  return std::max<int64_t>(1, arch.kv_heads / std::max(1, tp));
}

KvCache ComputeKvCache(const Architecture& arch, const KvSettings& s) {
  KvCache kv;
  kv.kv_heads_per_gpu = KvHeadsPerGpu(arch, s.tp);
  const double per_layer_token = 2.0 * static_cast<double>(kv.kv_heads_per_gpu * arch.head_dim) * s.dtype_bytes;
  for (int64_t layer = 0; layer < arch.layers; ++layer) {
    const int64_t window = layer < static_cast<int64_t>(arch.window_per_layer.size())
                               ? arch.window_per_layer[static_cast<size_t>(layer)] : 0;
    const int64_t held = window > 0 ? std::min(window, s.context) : s.context;
    (window > 0 ? kv.sliding_layers : kv.full_layers) += 1;
    kv.sequence_bytes_per_gpu += per_layer_token * static_cast<double>(held);
  }
  kv.bytes_per_token_per_gpu = per_layer_token * static_cast<double>(arch.layers);
  kv.total_bytes_per_gpu = kv.sequence_bytes_per_gpu * static_cast<double>(s.batch);
  kv.total_bytes_all_gpus = kv.total_bytes_per_gpu * std::max(1, s.tp);
  return kv;
}

nlohmann::json KvCacheJson(const KvCache& kv, const KvSettings& s) {
  const double tokens = static_cast<double>(s.context * s.batch);
  return {{"kv_heads_per_gpu", kv.kv_heads_per_gpu},
          {"full_attention_layers", kv.full_layers},
          {"sliding_window_layers", kv.sliding_layers},
          {"bytes_per_token_per_gpu", kv.bytes_per_token_per_gpu},
          {"average_bytes_per_token_per_gpu", tokens > 0 ? kv.total_bytes_per_gpu / tokens : 0.0},
          {"sequence_per_gpu", BytesJson(kv.sequence_bytes_per_gpu)},
          {"total_per_gpu", BytesJson(kv.total_bytes_per_gpu)},
          {"total_all_gpus", BytesJson(kv.total_bytes_all_gpus)}};
}

}  // namespace labcheck::calc

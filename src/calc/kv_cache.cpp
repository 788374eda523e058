#include "calc/kv_cache.h"

#include <algorithm>

#include "calc/byte_units.h"

namespace labcheck::calc {

int64_t KvHeadsPerGpu(const Architecture& arch, int tp) {
  return std::max<int64_t>(1, arch.kv_heads / std::max(1, tp));
}

KvCache ComputeKvCache(const Architecture& arch, const KvSettings& s) {
  KvCache kv;
  kv.latent = arch.mla.enabled();
  kv.kv_heads_per_gpu = kv.latent ? 0 : KvHeadsPerGpu(arch, s.tp);
  kv.values_per_layer_token_per_gpu =
      kv.latent ? arch.mla.cached_values_per_token_layer() : 2 * kv.kv_heads_per_gpu * arch.head_dim;
  const double per_layer_token = static_cast<double>(kv.values_per_layer_token_per_gpu) * s.dtype_bytes;
  const int tp = std::max(1, s.tp);
  for (int64_t layer = 0; layer < arch.layers; ++layer) {
    if (arch.mamba.IsMamba(layer)) {
      kv.state_layers += 1;
      // vLLM keeps states in the model dtype whatever --kv-cache-dtype says (mamba_cache_dtype "auto"),
      // Nemotron-H's SSM state in its mamba_ssm_cache_dtype.
      kv.state_bytes_per_sequence_per_gpu += arch.mamba.state_bytes_per_layer(arch.hidden, kBf16) / tp;
      continue;
    }
    if (!arch.HasAttention(layer)) continue;  // Nemotron-H's MLP blocks keep nothing
    const int64_t window = arch.WindowOf(layer), chunk = arch.ChunkOf(layer);
    const int64_t limit = window > 0 ? window : chunk;
    const int64_t held = limit > 0 ? std::min(limit, s.context) : s.context;
    (window > 0 ? kv.sliding_layers : chunk > 0 ? kv.chunked_layers : kv.full_layers) += 1;
    kv.sequence_bytes_per_gpu += per_layer_token * static_cast<double>(held);
  }
  kv.sequence_bytes_per_gpu += kv.state_bytes_per_sequence_per_gpu;
  kv.bytes_per_token_per_gpu = per_layer_token * static_cast<double>(kv.full_layers + kv.sliding_layers + kv.chunked_layers);
  kv.total_bytes_per_gpu = kv.sequence_bytes_per_gpu * static_cast<double>(s.batch);
  kv.total_bytes_all_gpus = kv.total_bytes_per_gpu * std::max(1, s.tp);
  return kv;
}

nlohmann::json KvCacheJson(const KvCache& kv, const KvSettings& s) {
  const double tokens = static_cast<double>(s.context * s.batch);
  return {{"layout", kv.latent ? "mla_latent_replicated_across_tp" : "kv_heads_split_across_tp"},
          {"kv_heads_per_gpu", kv.kv_heads_per_gpu},
          {"values_per_layer_token_per_gpu", kv.values_per_layer_token_per_gpu},
          {"full_attention_layers", kv.full_layers},
          {"sliding_window_layers", kv.sliding_layers},
          {"chunked_attention_layers", kv.chunked_layers},
          {"mamba_layers", kv.state_layers},
          {"mamba_state_bytes_per_sequence_per_gpu", kv.state_bytes_per_sequence_per_gpu},
          {"bytes_per_token_per_gpu", kv.bytes_per_token_per_gpu},
          {"average_bytes_per_token_per_gpu", tokens > 0 ? kv.total_bytes_per_gpu / tokens : 0.0},
          {"sequence_per_gpu", BytesJson(kv.sequence_bytes_per_gpu)},
          {"total_per_gpu", BytesJson(kv.total_bytes_per_gpu)},
          {"total_all_gpus", BytesJson(kv.total_bytes_all_gpus)}};
}

}  // namespace labcheck::calc

// KV-cache size: 2 (K and V) x layers x KV heads x head_dim x bytes, per token, with
// sliding-window layers holding at most their window (chunked layers at most their chunk) and tensor parallelism splitting KV heads
// (never below one per GPU: vLLM replicates them when tp > kv_heads). Multi-head latent attention
// caches kv_lora_rank + qk_rope_head_dim values per token and layer instead, whole on every
// tensor-parallel rank (vLLM's MLA backends, vllm/attention/backends/mla and v1/attention/backends/mla,
// allocate a (blocks, block_size, kv_lora_rank + rope) cache per layer that TP does not split).
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "calc/architecture.h"

namespace labcheck::calc {

struct KvSettings {
  int64_t context = 0;     // tokens per sequence
  int64_t batch = 1;       // sequences
  double dtype_bytes = 2;  // bf16 2, fp8 1
  int tp = 1;
};

struct KvCache {
  bool latent = false;          // MLA: one latent per token and layer, replicated across TP
  int64_t kv_heads_per_gpu = 0; // 0 under MLA
  int64_t values_per_layer_token_per_gpu = 0;  // 2 x kv heads x head_dim, or MLA's latent + rope key
  int64_t full_layers = 0;
  int64_t sliding_layers = 0;
  // Llama 4's chunked layers: at most one chunk of attention_chunk_size tokens (vLLM's
  // ChunkedLocalAttentionManager frees the blocks before the current chunk).
  int64_t chunked_layers = 0;
  // Mamba layers of a hybrid: a fixed state per sequence (convolution window + SSM state, in the
  // model dtype as vLLM keeps them, split by TP as vLLM splits the inner width), nothing per token.
  int64_t state_layers = 0;
  double state_bytes_per_sequence_per_gpu = 0;
  // Per token while the context is within every window: all attention layers hold it.
  double bytes_per_token_per_gpu = 0;
  // One sequence of `context` tokens, windows applied, Mamba states included.
  double sequence_bytes_per_gpu = 0;
  double total_bytes_per_gpu = 0;     // x batch
  double total_bytes_all_gpus = 0;    // x tp (replicated heads counted on every GPU)
};

KvCache ComputeKvCache(const Architecture& arch, const KvSettings& settings);
int64_t KvHeadsPerGpu(const Architecture& arch, int tp);
nlohmann::json KvCacheJson(const KvCache& kv, const KvSettings& settings);

}  // namespace labcheck::calc

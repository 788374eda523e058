// KV-cache size: 2 (K and V) x layers x KV heads x head_dim x bytes, per token, with
// sliding-window layers holding at most their window and tensor parallelism splitting KV heads
// (never below one per GPU: vLLM replicates them when tp > kv_heads).
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
  int64_t kv_heads_per_gpu = 0;
  int64_t full_layers = 0;
  int64_t sliding_layers = 0;
  // Per token while the context is within every window: all layers hold it.
  double bytes_per_token_per_gpu = 0;
  // One sequence of `context` tokens, windows applied.
  double sequence_bytes_per_gpu = 0;
  double total_bytes_per_gpu = 0;     // x batch
  double total_bytes_all_gpus = 0;    // x tp (replicated heads counted on every GPU)
};

KvCache ComputeKvCache(const Architecture& arch, const KvSettings& settings);
int64_t KvHeadsPerGpu(const Architecture& arch, int tp);
nlohmann::json KvCacheJson(const KvCache& kv, const KvSettings& settings);

}  // namespace labcheck::calc

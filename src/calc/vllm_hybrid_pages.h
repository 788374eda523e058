// How vLLM V1 keeps the state layers of a hybrid (Jamba's Mamba, Nemotron-H's Mamba-2, Qwen3-Next's
// Gated DeltaNet) and its attention layers in one pool of equal pages, and what it prints from that.
//
// vllm/model_executor/models/config.py, HybridAttentionMambaModelConfig.verify_and_update_config
// (read at the 0.11-era commit 0144dd5b0d2d and in its later form with the prefix-caching branch):
// the attention block size becomes the smallest multiple of 16 tokens (the kernels' alignment)
// whose page, block x one layer's K and V bytes per token, holds one layer's state; the state page
// is padded up to it ("Setting attention block size to N tokens", "Padding mamba page size by P%").
// vllm/v1/core/kv_cache_utils.py groups layers of one spec into groups of equal size (state layers
// are one spec, MambaSpec; vllm_profile.h HybridKvLayerSlots), allots num_blocks = room / page /
// group_size blocks to every layer slot, and prints "GPU KV cache size: num_blocks / groups x block
// tokens" and "Maximum concurrency: num_blocks / (attention groups x cdiv(max_model_len, block) +
// state groups)" (get_max_concurrency_for_kv_cache_config; MambaSpec.max_memory_usage_bytes is one
// page without prefix caching, vllm/v1/kv_cache_interface.py at commit 001cabc1be16). One request
// fits when the sum over layers, cdiv(max_model_len, block) pages per attention layer and one per
// state layer, fits the room (check_enough_kv_cache_memory).
#pragma once
#include <cstdint>
#include <optional>

#include "calc/architecture.h"
#include "calc/vllm_profile.h"

namespace labcheck::calc {

struct HybridPages {
  int64_t block_tokens = 0;          // the attention block size vLLM sets
  double attention_token_bytes = 0;  // one attention layer, one token, per GPU
  double state_bytes = 0;            // one state layer's state, per GPU, before padding
  double page_bytes = 0;             // block_tokens x attention_token_bytes: every page, state pages padded to it
  int64_t attention_layers = 0;
  int64_t state_layers = 0;
  int64_t group_size = 0;
  int64_t attention_groups = 0;
  int64_t state_groups = 0;

  int64_t groups() const { return attention_groups + state_groups; }
  double state_padding_percent() const { return state_bytes > 0 ? 100 * (page_bytes - state_bytes) / state_bytes : 0; }
};

// nullopt unless the model has both state and attention layers grouped by the hybrid manager.
// `alignment` is the kernels' block alignment (16 tokens).
std::optional<HybridPages> VllmHybridPages(const Architecture& arch, int tp, double kv_dtype_bytes, const KvLayerSlots& slots,
                                           int64_t alignment);

// What vLLM prints for a room of `room_bytes` per GPU.
struct HybridPool {
  int64_t num_blocks = 0;
  int64_t tokens = 0;       // "GPU KV cache size: N tokens"
  double concurrency = 0;   // "Maximum concurrency for max_model_len tokens per request: Cx"
};
HybridPool VllmHybridPool(const HybridPages& pages, double room_bytes, int64_t max_model_len);

// Bytes one request of `len` tokens must find free for vLLM to start (check_enough_kv_cache_memory).
double HybridRequestBytes(const HybridPages& pages, int64_t len);

}  // namespace labcheck::calc

#include "calc/vllm_hybrid_pages.h"

#include <algorithm>
#include <cmath>

#include "calc/byte_units.h"
#include "calc/kv_cache.h"

namespace labcheck::calc {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::optional<HybridPages> VllmHybridPages(const Architecture& arch, int tp, double kv_dtype_bytes, const KvLayerSlots& slots,
                                           int64_t alignment) {
  if (slots.state_groups == 0 || slots.attention_layers == 0 || slots.group_size == 0) return std::nullopt;
  HybridPages p;
  const KvCache one = ComputeKvCache(arch, {1, 1, kv_dtype_bytes, tp});
  p.attention_token_bytes = static_cast<double>(one.values_per_layer_token_per_gpu) * kv_dtype_bytes;
  // The state in the model dtype (vLLM's mamba_cache_dtype "auto"), split by TP.
  p.state_bytes = arch.mamba.state_bytes_per_layer(arch.hidden, kBf16) / std::max(1, tp);
  // The smallest multiple of `alignment` tokens whose attention page holds one state.
  const double aligned_page = static_cast<double>(alignment) * p.attention_token_bytes;
  p.block_tokens = alignment * static_cast<int64_t>(std::ceil(p.state_bytes / aligned_page));
  p.page_bytes = static_cast<double>(p.block_tokens) * p.attention_token_bytes;
  p.attention_layers = slots.attention_layers;
  p.state_layers = slots.state_layers;
  p.group_size = slots.group_size;
  p.state_groups = slots.state_groups;
  p.attention_groups = slots.groups - slots.state_groups;
  return p;
}

HybridPool VllmHybridPool(const HybridPages& p, double room_bytes, int64_t max_model_len) {
  HybridPool pool;
  if (room_bytes <= 0 || p.page_bytes <= 0) return pool;
  // kv_cache_utils.py: num_blocks = available_memory // page_size // group_size, one tensor of
  // num_blocks pages per layer slot, shared by one layer of every group.
  pool.num_blocks = static_cast<int64_t>(std::floor(std::floor(room_bytes / p.page_bytes) / static_cast<double>(p.group_size)));
  pool.tokens = pool.num_blocks / p.groups() * p.block_tokens;
  const int64_t blocks_per_request = p.attention_groups * CeilDiv(max_model_len, p.block_tokens) + p.state_groups;
  pool.concurrency = blocks_per_request > 0 ? static_cast<double>(pool.num_blocks) / static_cast<double>(blocks_per_request) : 0;
  return pool;
}

double HybridRequestBytes(const HybridPages& p, int64_t len) {
  const int64_t attention_pages = p.attention_layers * CeilDiv(len, p.block_tokens);
  return static_cast<double>(attention_pages + p.state_layers) * p.page_bytes;
}

}  // namespace labcheck::calc

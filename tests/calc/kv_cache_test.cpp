// KV cache against hand-worked figures.
#include <gtest/gtest.h>

#include "calc/kv_cache.h"
#include "calc/model_catalog.h"

namespace labcheck::calc {
namespace {

const Architecture& Arch(const char* name) { return ModelCatalog::Builtin().Find(name)->arch; }

TEST(KvCacheTest, Llama8bIs128KiBPerToken) {
  // 2 (K, V) * 8 KV heads * 128 * 2 bytes * 32 layers = 131,072 bytes; 8192 tokens = 1 GiB.
  const KvCache kv = ComputeKvCache(Arch("llama-3.1-8b"), {8192, 1, 2, 1});
  EXPECT_DOUBLE_EQ(kv.bytes_per_token_per_gpu, 131'072);
  EXPECT_DOUBLE_EQ(kv.sequence_bytes_per_gpu, 1024.0 * 1024 * 1024);
}

TEST(KvCacheTest, TensorParallelSplitsKvHeadsButNeverBelowOne) {
  const Architecture& arch = Arch("llama-3.1-70b");  // 8 KV heads
  EXPECT_EQ(KvHeadsPerGpu(arch, 4), 2);
  EXPECT_EQ(KvHeadsPerGpu(arch, 16), 1);  // replicated: 16 GPUs hold 16 copies of 8 heads' halves
  const KvCache kv = ComputeKvCache(arch, {1000, 2, 1, 16});
  // 2 * 1 head * 128 * 1 byte (fp8) * 80 layers = 20,480 bytes per token per GPU.
  EXPECT_DOUBLE_EQ(kv.bytes_per_token_per_gpu, 20'480);
  EXPECT_DOUBLE_EQ(kv.total_bytes_per_gpu, 20'480.0 * 1000 * 2);
  EXPECT_DOUBLE_EQ(kv.total_bytes_all_gpus, 20'480.0 * 1000 * 2 * 16);
}

TEST(KvCacheTest, GemmaSlidingLayersHoldOnlyTheirWindow) {
  // Gemma 3 27B: 62 layers, every 6th global -> 10 global, 52 local with a 1024-token window.
  // Per layer and token 2 * 16 * 128 * 2 = 8,192 bytes. At 32,768 tokens:
  // 10 * 8,192 * 32,768 + 52 * 8,192 * 1,024 = 2,684,354,560 + 436,207,616 = 3,120,562,176.
  const KvCache kv = ComputeKvCache(Arch("gemma-3-27b"), {32768, 1, 2, 1});
  EXPECT_EQ(kv.full_layers, 10);
  EXPECT_EQ(kv.sliding_layers, 52);
  EXPECT_DOUBLE_EQ(kv.sequence_bytes_per_gpu, 3'120'562'176.0);
  // Within the window every layer holds every token.
  const KvCache short_context = ComputeKvCache(Arch("gemma-3-27b"), {512, 1, 2, 1});
  EXPECT_DOUBLE_EQ(short_context.sequence_bytes_per_gpu, 8192.0 * 62 * 512);
}

TEST(KvCacheTest, MistralV01WindowsEveryLayer) {
  // sliding_window 4096 on all 32 layers: at 32k tokens the cache stops growing at 4096.
  const KvCache kv = ComputeKvCache(Arch("mistral-7b-v0.1"), {32768, 1, 2, 1});
  EXPECT_DOUBLE_EQ(kv.sequence_bytes_per_gpu, 131'072.0 * 4096);
}

}  // namespace
}  // namespace labcheck::calc

// How a training run is set up: what the memory, cost and plan calculators take as input.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace labcheck::calc {

enum class Method { Full, Lora, Qlora };
enum class Optimizer { AdamW, AdamW8bit, Sgd };
// bf16: weights, gradients and optimizer states all BF16 (what the lesson's "x 2 bytes x 4"
// assumes). mixed: FP32 master weights, gradients and states with BF16 autocast (HF Trainer
// with bf16=True on an FP32-loaded model).
enum class Precision { Bf16, Mixed };

struct TrainingSettings {
  Method method = Method::Full;
  int64_t seq = 2048;
  int64_t batch = 1;  // micro-batch per GPU
  bool checkpointing = false;
  Optimizer optimizer = Optimizer::AdamW;
  Precision precision = Precision::Bf16;
  int64_t lora_rank = 16;
  int gpus = 1;  // > 1: weights, gradients and optimizer states sharded (FSDP full shard)
};

std::optional<Method> ParseMethod(const std::string& text);
std::optional<Optimizer> ParseOptimizer(const std::string& text);
std::optional<Precision> ParsePrecision(const std::string& text);
const char* MethodName(Method method);
const char* OptimizerName(Optimizer optimizer);
const char* PrecisionName(Precision precision);

}  // namespace labcheck::calc

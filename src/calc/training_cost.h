// Training FLOPs, time and money. Full training: 6·N·D (forward 2N, backward 4N per token);
// 8·N·D with full activation recomputation (one more forward). LoRA/QLoRA: the frozen weights
// need no weight gradients, so backward is 2N for the input gradients: 4·N·D, 6·N·D with
// recomputation; the adapters' own FLOPs are under 1% and left out. N counts the parameters in
// matrix multiplications that a token uses (MoE: active experts; the embedding lookup is no matmul).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "calc/training_settings.h"
#include "core/text.h"

namespace labcheck::calc {

struct Throughput {
  double tflops_low = 0;   // per GPU, achieved on real training
  double tflops_high = 0;  // = low when one figure is known
  Text source;             // where the figure comes from
};

struct CostInput {
  double params = 0;       // N
  double tokens = 0;       // D
  Method method = Method::Full;
  bool recompute = false;
  int gpus = 1;
  std::optional<double> price_per_gpu_hour;
};

struct TrainingCost {
  double flops_per_token_per_param = 6;  // 6, 8, 4 or 6
  double flops = 0;
  double hours_low = 0, hours_high = 0;  // wall time at the high / low TFLOPS
  double gpu_hours_low = 0, gpu_hours_high = 0;
  std::optional<double> money_low, money_high;
};

double FlopsPerTokenPerParam(Method method, bool recompute);
TrainingCost ComputeTrainingCost(const CostInput& input, const Throughput& throughput);
nlohmann::json TrainingCostJson(const TrainingCost& cost, const CostInput& input, const Throughput& throughput, Lang lang);
// "3 d 4 h", "5.2 h", "12 min"
std::string FormatDuration(double hours, Lang lang);

}  // namespace labcheck::calc

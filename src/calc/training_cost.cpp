#include "calc/training_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace labcheck::calc {

double FlopsPerTokenPerParam(Method method, bool recompute) {
  const double forward = 2, input_gradients = 2, weight_gradients = method == Method::Full ? 2 : 0;
  return forward + input_gradients + weight_gradients + (recompute ? forward : 0);
}

TrainingCost ComputeTrainingCost(const CostInput& in, const Throughput& t) {
  TrainingCost c;
  c.flops_per_token_per_param = FlopsPerTokenPerParam(in.method, in.recompute);
  c.flops = c.flops_per_token_per_param * in.params * in.tokens;
  const int gpus = std::max(1, in.gpus);
  // Faster throughput gives the shorter ("low") time.
  c.hours_low = c.flops / (t.tflops_high * 1e12 * gpus) / 3600;
  c.hours_high = c.flops / (t.tflops_low * 1e12 * gpus) / 3600;
  c.gpu_hours_low = c.hours_low * gpus;
  c.gpu_hours_high = c.hours_high * gpus;
  if (in.price_per_gpu_hour) {
    c.money_low = c.gpu_hours_low * *in.price_per_gpu_hour;
    c.money_high = c.gpu_hours_high * *in.price_per_gpu_hour;
  }
  return c;
}

std::string FormatDuration(double hours, Lang lang) {
  const bool ru = lang == Lang::Ru;
  if (hours < 1) return fmt::format("{:.0f} {}", std::max(1.0, hours * 60), ru ? "мин" : "min");
  if (hours < 48) return fmt::format("{:.1f} {}", hours, ru ? "ч" : "h");
  return fmt::format("{:.1f} {}", hours / 24, ru ? "сут" : "days");
}

nlohmann::json TrainingCostJson(const TrainingCost& c, const CostInput& in, const Throughput& t, Lang lang) {
  auto optional = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"params", in.params},
          {"tokens", in.tokens},
          {"method", MethodName(in.method)},
          {"recompute", in.recompute},
          {"gpus", in.gpus},
          {"flops_per_token_per_param", c.flops_per_token_per_param},
          {"flops", c.flops},
          {"tflops_per_gpu", {{"low", t.tflops_low}, {"high", t.tflops_high}, {"source", t.source.In(lang)}}},
          {"hours", {{"low", c.hours_low}, {"high", c.hours_high}}},
          {"gpu_hours", {{"low", c.gpu_hours_low}, {"high", c.gpu_hours_high}}},
          {"price_per_gpu_hour", optional(in.price_per_gpu_hour)},
          {"money", {{"low", optional(c.money_low)}, {"high", optional(c.money_high)}}}};
}

}  // namespace labcheck::calc
